package io.klink.generator;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Parser for delay specs {@code <kind>:<arguments>}. A new distribution is one more entry in
 * {@link #KINDS} (and one line in {@link #EXPECTED}).
 */
public final class DelayModels {

    private static final Map<String, Function<String, DelayModel>> KINDS = new LinkedHashMap<>();

    static {
        KINDS.put("const", ConstantDelay::parseArgument);
    }

    /** What a valid spec looks like; part of every parse error. */
    public static final String EXPECTED =
            "expected const:<duration>, e.g. const:300ms, const:1.5s, const:0 (whole milliseconds, >= 0)";

    private DelayModels() {
    }

    /** @throws IllegalArgumentException with one message naming the bad spec and the expected form */
    public static DelayModel parse(String spec) {
        if (spec == null) {
            throw new IllegalArgumentException("missing delay spec: " + EXPECTED);
        }
        String s = spec.trim();
        int colon = s.indexOf(':');
        Function<String, DelayModel> parser = colon > 0 ? KINDS.get(s.substring(0, colon)) : null;
        if (parser == null) {
            throw new IllegalArgumentException("invalid delay spec '" + spec + "': " + EXPECTED);
        }
        try {
            return parser.apply(s.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "invalid delay spec '" + spec + "' (" + e.getMessage() + "): " + EXPECTED);
        }
    }
}
