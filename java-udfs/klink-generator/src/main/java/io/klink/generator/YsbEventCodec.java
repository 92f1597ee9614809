package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Draws the random fields of one YSB event into a packed long and renders events as JSON:
 * {@code {"user_id":"..","page_id":"..","ad_id":"..","ad_type":"banner","event_type":"view",
 * "event_time":1700000000123,"ip":"1.2.3.4"}}. Rendering copies precomputed bytes into one reused
 * buffer: no String.format, no UUID.toString, no per-event strings.
 *
 * <p>Packed layout (low to high bits): ad index 32, user index 8, page index 8, ad type 4,
 * event type 4. The ip is the constant {@code 1.2.3.4}, as in the original YSB generator.
 */
public final class YsbEventCodec {

    public static final String[] AD_TYPES = {"banner", "modal", "sponsored-search", "mail", "mobile"};
    public static final String[] EVENT_TYPES = {"view", "click", "purchase"};
    public static final String IP = "1.2.3.4";

    private static final byte[] F_USER = ascii("{\"user_id\":\"");
    private static final byte[] F_PAGE = ascii("\",\"page_id\":\"");
    private static final byte[] F_AD = ascii("\",\"ad_id\":\"");
    private static final byte[] F_AD_TYPE = ascii("\",\"ad_type\":\"");
    private static final byte[] F_EVENT_TYPE = ascii("\",\"event_type\":\"");
    private static final byte[] F_EVENT_TIME = ascii("\",\"event_time\":");
    private static final byte[] F_END = ascii(",\"ip\":\"" + IP + "\"}");
    private static final byte[][] AD_TYPE_BYTES = asciiAll(AD_TYPES);
    private static final byte[][] EVENT_TYPE_BYTES = asciiAll(EVENT_TYPES);

    private final YsbCatalog catalog;
    private final int adCount;
    private final byte[] buffer;

    public YsbEventCodec(YsbCatalog catalog) {
        this.catalog = catalog;
        this.adCount = catalog.adCount();
        // ids are 36 chars; longest ad/event type 16; a long has at most 20 chars.
        this.buffer = new byte[F_USER.length + F_PAGE.length + F_AD.length + F_AD_TYPE.length
                + F_EVENT_TYPE.length + F_EVENT_TIME.length + F_END.length + 3 * 36 + 16 + 16 + 20];
    }

    /** Draws one event's fields from the topic's stream. Exactly five draws per event. */
    public long draw(SplittableRandom rng) {
        long ad = rng.nextInt(adCount);
        long user = rng.nextInt(YsbCatalog.USER_POOL);
        long page = rng.nextInt(YsbCatalog.PAGE_POOL);
        long adType = rng.nextInt(AD_TYPES.length);
        long eventType = rng.nextInt(EVENT_TYPES.length);
        return ad | (user << 32) | (page << 40) | (adType << 48) | (eventType << 52);
    }

    public static int adIndex(long packed) {
        return (int) (packed & 0xFFFF_FFFFL);
    }

    public static int userIndex(long packed) {
        return (int) ((packed >>> 32) & 0xFF);
    }

    public static int pageIndex(long packed) {
        return (int) ((packed >>> 40) & 0xFF);
    }

    public static int adTypeIndex(long packed) {
        return (int) ((packed >>> 48) & 0xF);
    }

    public static int eventTypeIndex(long packed) {
        return (int) ((packed >>> 52) & 0xF);
    }

    /** Renders into {@link #buffer()} and returns the number of bytes written. */
    public int encode(long packed, long eventTimeMs) {
        byte[] b = buffer;
        int p = put(b, 0, F_USER);
        p = put(b, p, catalog.userIdBytes[userIndex(packed)]);
        p = put(b, p, F_PAGE);
        p = put(b, p, catalog.pageIdBytes[pageIndex(packed)]);
        p = put(b, p, F_AD);
        p = put(b, p, catalog.adIdBytes[adIndex(packed)]);
        p = put(b, p, F_AD_TYPE);
        p = put(b, p, AD_TYPE_BYTES[adTypeIndex(packed)]);
        p = put(b, p, F_EVENT_TYPE);
        p = put(b, p, EVENT_TYPE_BYTES[eventTypeIndex(packed)]);
        p = put(b, p, F_EVENT_TIME);
        p = putLong(b, p, eventTimeMs);
        return put(b, p, F_END);
    }

    /** The reused output buffer; valid up to the length returned by the last {@link #encode}. */
    public byte[] buffer() {
        return buffer;
    }

    /** Convenience for tests and debugging (allocates). */
    public String toJson(long packed, long eventTimeMs) {
        int len = encode(packed, eventTimeMs);
        return new String(buffer, 0, len, StandardCharsets.US_ASCII);
    }

    private static int put(byte[] dst, int pos, byte[] src) {
        System.arraycopy(src, 0, dst, pos, src.length);
        return pos + src.length;
    }

    /** Writes the decimal digits of {@code v} (any long). */
    static int putLong(byte[] dst, int pos, long v) {
        if (v == Long.MIN_VALUE) {
            return put(dst, pos, ascii(Long.toString(v)));
        }
        if (v < 0) {
            dst[pos++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long x = v; x >= 10; x /= 10) {
            digits++;
        }
        int end = pos + digits;
        for (int i = end - 1; i >= pos; i--) {
            dst[i] = (byte) ('0' + (v % 10));
            v /= 10;
        }
        return end;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[][] asciiAll(String[] values) {
        byte[][] out = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            out[i] = ascii(values[i]);
        }
        return out;
    }
}
