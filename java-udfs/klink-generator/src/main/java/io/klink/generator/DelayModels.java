package io.klink.generator;

import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Parser for delay specs {@code <kind>:<arguments>}. A new distribution is one more entry in {@link #KINDS};
 * the build's catalog (klink-catalog) carries them to klinkctl/delay.py, which parses the same syntax.
 */
public final class DelayModels {

    /**
     * A delay model: its name, its form ({@code <...>} marks each parameter), an example spec and its parser
     * (of the part after {@code <kind>:}).
     */
    public record Kind(String name, String form, String example, Function<String, DelayModel> parser) {
        private static final Pattern PARAMETER = Pattern.compile("<([^>]+)>");

        /** The parameters' names, in the order the form takes them. */
        public List<String> parameters() {
            return PARAMETER.matcher(form).results().map(m -> m.group(1)).toList();
        }
    }

    public static final List<Kind> KINDS = List.of(
            new Kind("const", "const:<d>", "const:300ms", ConstantDelay::parseArgument),
            new Kind("uniform", "uniform:<low>-<high>", "uniform:0-2s", RandomDelays.Uniform::parseArgument),
            new Kind("normal", "normal:<mean>:<sigma>", "normal:300ms:50ms", RandomDelays.Normal::parseArgument),
            new Kind("exp", "exp:<mean>", "exp:240ms", RandomDelays.Exponential::parseArgument),
            new Kind("gamma", "gamma:<k>:<theta>", "gamma:60:4ms", RandomDelays.Gamma::parseArgument),
            new Kind("lognormal", "lognormal:<median>:<sigma>", "lognormal:200ms:0.5",
                    RandomDelays.Lognormal::parseArgument),
            new Kind("pareto", "pareto:<scale>:<shape>", "pareto:100ms:2.5", RandomDelays.Pareto::parseArgument),
            new Kind("zipf", "zipf:<s>:<low>-<high>", "zipf:0.99:0-2s", RandomDelays.Zipf::parseArgument));

    /** What a valid spec looks like; part of every parse error. */
    public static final String EXPECTED = "expected one of " + KINDS.stream()
            .map(k -> k.form() + " (" + k.example() + ")").collect(Collectors.joining(", "))
            + "; durations in whole ms";

    private DelayModels() {
    }

    /** @throws IllegalArgumentException with one message naming the bad spec and the expected form */
    public static DelayModel parse(String spec) {
        if (spec == null) {
            throw new IllegalArgumentException("missing delay spec: " + EXPECTED);
        }
        String s = spec.trim();
        int colon = s.indexOf(':');
        String name = colon > 0 ? s.substring(0, colon) : "";
        Function<String, DelayModel> parser = KINDS.stream().filter(k -> k.name().equals(name))
                .map(Kind::parser).findFirst().orElse(null);
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
