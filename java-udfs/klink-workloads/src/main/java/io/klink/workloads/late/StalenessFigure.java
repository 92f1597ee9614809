package io.klink.workloads.late;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The comparison of the paper's Fig. 9 (seed aion-late-events-esteves.txt §5 Q4) for late-arrival distributions
 * given as CDFs: per distribution and trigger (aion = {@link StalenessTrigger#balanced}, deltat, deltaev) the
 * maximum staleness for 1..k executions, and the fewest executions reaching each bound (aion: the greedy count;
 * the baselines: the smallest count up to {@link #SEARCH} whose maximum is within the bound, empty beyond).
 *
 * <pre>java -cp klink-workloads.jar io.klink.workloads.late.StalenessFigure CDFS MAX_EXECUTIONS BOUND...</pre>
 * CDFS: one line per distribution, {@code name,F(0),F(1/m),...,F(1)}. Writes CSV to stdout:
 * {@code distribution,trigger,executions,max_staleness} rows, then {@code distribution,trigger,bound,executions}.
 */
public final class StalenessFigure {

    public static final int SEARCH = 1000;
    private static final List<String> TRIGGERS = List.of("aion", "deltat", "deltaev");

    private StalenessFigure() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: StalenessFigure CDFS MAX_EXECUTIONS BOUND...");
            System.exit(2);
        }
        try {
            write(Files.readAllLines(Path.of(args[0])), Integer.parseInt(args[1]),
                    Arrays.stream(args, 2, args.length).mapToDouble(Double::parseDouble).toArray(), System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("StalenessFigure: " + e.getMessage());
            System.exit(2);
        }
    }

    static void write(List<String> cdfLines, int maxExecutions, double[] bounds, PrintStream out) {
        List<String> names = new ArrayList<>();
        List<LateArrivals> distributions = new ArrayList<>();
        for (String line : cdfLines) {
            String[] cells = line.split(",");
            names.add(cells[0]);
            distributions.add(LateArrivals.fromCdf(Arrays.stream(cells, 1, cells.length)
                    .mapToDouble(Double::parseDouble).toArray()));
        }
        out.println("distribution,trigger,executions,max_staleness");
        for (int d = 0; d < names.size(); d++) {
            for (String trigger : TRIGGERS) {
                for (int k = 1; k <= maxExecutions; k++) {
                    double st = StalenessTrigger.maxStaleness(distributions.get(d), schedule(trigger,
                            distributions.get(d), k));
                    out.printf(Locale.ROOT, "%s,%s,%d,%.6g%n", names.get(d), trigger, k, st);
                }
            }
        }
        out.println("distribution,trigger,bound,executions");
        for (int d = 0; d < names.size(); d++) {
            for (String trigger : TRIGGERS) {
                for (double bound : bounds) {
                    int k = fewest(trigger, distributions.get(d), bound);
                    out.printf(Locale.ROOT, "%s,%s,%s,%s%n", names.get(d), trigger, bound, k > 0 ? k : "");
                }
            }
        }
    }

    static double[] schedule(String trigger, LateArrivals f, int k) {
        return switch (trigger) {
            case "aion" -> StalenessTrigger.balanced(f, k).times();
            case "deltat" -> StalenessTrigger.deltaT(k);
            case "deltaev" -> StalenessTrigger.deltaEv(f, k);
            default -> throw new IllegalArgumentException("unknown trigger " + trigger);
        };
    }

    /** The fewest executions whose maximum staleness is within the bound; 0 if more than {@link #SEARCH}. */
    static int fewest(String trigger, LateArrivals f, double bound) {
        if (trigger.equals("aion")) {
            return StalenessTrigger.plan(f, bound).executions();
        }
        for (int k = 1; k <= SEARCH; k++) {
            if (StalenessTrigger.within(StalenessTrigger.maxStaleness(f, schedule(trigger, f, k)), bound)) {
                return k;
            }
        }
        return 0;
    }
}
