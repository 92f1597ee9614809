package io.klink.generator;

import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses human durations ("300ms", "1.5s", "2m", "0") into exact whole milliseconds. */
public final class Durations {

    private static final Pattern FORM = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)?");

    private Durations() {
    }

    /**
     * @param text        e.g. {@code 300ms}, {@code 1.5s}, {@code 2m}, {@code 1h}, or a bare number
     * @param defaultUnit unit of a bare number: one of ms, s, m, h
     * @return the duration in milliseconds
     * @throws IllegalArgumentException if malformed, negative, or not a whole number of milliseconds
     */
    public static long parseMillis(String text, String defaultUnit) {
        if (text == null) {
            throw new IllegalArgumentException("missing duration");
        }
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration like 300ms, 1.5s, 2m");
        }
        String unit = m.group(2) != null ? m.group(2) : defaultUnit;
        long factor = switch (unit) {
            case "ms" -> 1L;
            case "s" -> 1_000L;
            case "m" -> 60_000L;
            case "h" -> 3_600_000L;
            default -> throw new IllegalArgumentException("unknown duration unit '" + unit + "'");
        };
        BigDecimal ms = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(factor));
        try {
            return ms.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a whole number of milliseconds (or is too large)");
        }
    }

    /** Formats milliseconds back into the shortest exact form: 0, 300ms, 2s, 1500ms. */
    public static String format(long ms) {
        if (ms == 0) {
            return "0";
        }
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
    }
}
