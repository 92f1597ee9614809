package io.klink.generator;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Parser for delay specs {@code <kind>:<arguments>}. A new distribution is one more entry in
 * {@link #KINDS} (and one example in {@link #EXPECTED}); klinkctl/delay.py mirrors the same syntax.
 */
public final class DelayModels {

    private static final Map<String, Function<String, DelayModel>> KINDS = new LinkedHashMap<>();

    static {
        KINDS.put("const", ConstantDelay::parseArgument);
        KINDS.put("uniform", RandomDelays.Uniform::parseArgument);
        KINDS.put("normal", RandomDelays.Normal::parseArgument);
        KINDS.put("exp", RandomDelays.Exponential::parseArgument);
        KINDS.put("gamma", RandomDelays.Gamma::parseArgument);
        KINDS.put("lognormal", RandomDelays.Lognormal::parseArgument);
        KINDS.put("pareto", RandomDelays.Pareto::parseArgument);
        KINDS.put("zipf", RandomDelays.Zipf::parseArgument);
    }

    /** What a valid spec looks like; part of every parse error. */
    public static final String EXPECTED = "expected one of const:<d> (const:300ms), uniform:<low>-<high> (uniform:0-2s), "
            + "normal:<mean>:<sigma> (normal:300ms:50ms), exp:<mean> (exp:240ms), gamma:<k>:<theta> (gamma:60:4ms), "
            + "lognormal:<median>:<sigma> (lognormal:200ms:0.5), pareto:<scale>:<shape> (pareto:100ms:2.5), "
            + "zipf:<s>:<low>-<high> (zipf:0.99:0-2s); durations in whole ms";

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
