package io.klink.sim;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code java -jar klink-sim.jar SPEC.json RUN_DIR}: simulates the run SPEC.json describes into RUN_DIR. Exit 2
 * with one line on stderr for a spec it cannot run; 1 if the files cannot be written.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: klink-sim SPEC.json RUN_DIR");
            System.exit(2);
        }
        SimSpec spec;
        try {
            spec = SimSpec.read(Path.of(args[0]));
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("klink-sim: cannot read " + args[0] + ": " + firstLine(e.getMessage()));
            System.exit(2);
            return;
        }
        try {
            Map<String, Object> result = new Simulation(spec).run(Path.of(args[1]));
            System.out.println(SimSpec.JSON.writeValueAsString(result));
        } catch (IllegalArgumentException e) {
            System.err.println("klink-sim: " + firstLine(e.getMessage()));
            System.exit(2);
        } catch (IOException e) {
            System.err.println("klink-sim: cannot write " + args[1] + ": " + firstLine(e.getMessage()));
            System.exit(1);
        }
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
