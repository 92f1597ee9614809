package io.klink.generator;

import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Parser for delay specs {@code <kind>:<arguments>}. A new distribution is a class and one more entry in
 * {@link RandomDelays#KINDS}, both in that file;
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

    /** Every delay model, declared beside its distribution ({@link RandomDelays#KINDS}). */
    public static final List<Kind> KINDS = RandomDelays.KINDS;

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
