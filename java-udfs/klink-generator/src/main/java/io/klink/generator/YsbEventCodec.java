package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Draws the random fields of one YSB event into a packed long and renders events as JSON:
 * {@code {"user_id":"..","page_id":"..","ad_id":"..","ad_type":"banner","event_type":"view",
 * "event_time":1700000000123,"ip":"1.2.3.4"}}. Rendering is six array copies of precomputed
 * fragments into one exact-size array: no String.format, no UUID.toString, no per-event strings; the
 * digits of the event time are rendered once per millisecond.
 *
 * <p>Packed layout (low to high bits): ad index 32, user index 8, page index 8, ad type 4,
 * event type 4. The ip is the constant {@code 1.2.3.4}, as in the original YSB generator.
 */
public final class YsbEventCodec implements EventCodec {

    public static final String[] AD_TYPES = {"banner", "modal", "sponsored-search", "mail", "mobile"};
    public static final String[] EVENT_TYPES = {"view", "click", "purchase"};
    public static final String IP = "1.2.3.4";

    private static final byte[] END = ascii(",\"ip\":\"" + IP + "\"}");

    private final int adCount;
    /** {"user_id":"<user>","page_id":" */
    private final byte[][] userPart;
    /** <page>","ad_id":" */
    private final byte[][] pagePart;
    /** <ad> */
    private final byte[][] adPart;
    /** ","ad_type":"<type>","event_type":"<type>","event_time": ; index adType * 4 + eventType */
    private final byte[][] typesPart;
    private long cachedTimeMs = Long.MIN_VALUE;
    private final byte[] cachedTime = new byte[20];
    private int cachedTimeLength;

    public YsbEventCodec(YsbCatalog catalog) {
        this.adCount = catalog.adCount();
        this.userPart = new byte[YsbCatalog.USER_POOL][];
        for (int u = 0; u < userPart.length; u++) {
            userPart[u] = ascii("{\"user_id\":\"" + catalog.userId(u) + "\",\"page_id\":\"");
        }
        this.pagePart = new byte[YsbCatalog.PAGE_POOL][];
        for (int p = 0; p < pagePart.length; p++) {
            pagePart[p] = ascii(catalog.pageId(p) + "\",\"ad_id\":\"");
        }
        this.adPart = catalog.adIdBytes;
        this.typesPart = new byte[AD_TYPES.length * 4][];
        for (int a = 0; a < AD_TYPES.length; a++) {
            for (int e = 0; e < EVENT_TYPES.length; e++) {
                typesPart[a * 4 + e] = ascii("\",\"ad_type\":\"" + AD_TYPES[a] + "\",\"event_type\":\""
                        + EVENT_TYPES[e] + "\",\"event_time\":");
            }
        }
    }

    /** Draws one event's fields from the topic's stream. Exactly five draws per event. */
    @Override
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

    /** Renders one event into a new array of exactly its length (the caller owns it). */
    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        if (eventTimeMs != cachedTimeMs) {
            cachedTimeLength = putLong(cachedTime, 0, eventTimeMs);
            cachedTimeMs = eventTimeMs;
        }
        byte[] user = userPart[userIndex(packed)];
        byte[] page = pagePart[pageIndex(packed)];
        byte[] ad = adPart[adIndex(packed)];
        byte[] types = typesPart[adTypeIndex(packed) * 4 + eventTypeIndex(packed)];
        byte[] out = new byte[user.length + page.length + ad.length + types.length + cachedTimeLength + END.length];
        int p = put(out, 0, user);
        p = put(out, p, page);
        p = put(out, p, ad);
        p = put(out, p, types);
        System.arraycopy(cachedTime, 0, out, p, cachedTimeLength);
        put(out, p + cachedTimeLength, END);
        return out;
    }

    /** Convenience for tests and debugging. */
    public String toJson(long packed, long eventTimeMs) {
        return new String(encode(packed, eventTimeMs), StandardCharsets.US_ASCII);
    }

    private static int put(byte[] dst, int pos, byte[] src) {
        System.arraycopy(src, 0, dst, pos, src.length);
        return pos + src.length;
    }

    /** Writes the decimal digits of {@code v} (any long). */
    public static int putLong(byte[] dst, int pos, long v) {
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
}
