package io.klink.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The CPU this JVM really has, in cores: the cores it may run on (affinity, e.g. {@code taskset}) capped
 * by the CPU bandwidth quota of its cgroup and every parent cgroup (v2 {@code cpu.max}, v1
 * {@code cpu.cfs_quota_us / cpu.cfs_period_us}). The JVM's own {@code availableProcessors()} rounds a
 * quota of 0.4 core up to 1; Klink's light-load rule needs the fraction.
 */
final class CpuBudget {

    private CpuBudget() {
    }

    static double cores() {
        return Math.min(Runtime.getRuntime().availableProcessors(), quotaCores(Path.of("/proc/self/cgroup"),
                Path.of("/sys/fs/cgroup")));
    }

    /** The smallest quota on the way from this process's cgroup to the root; +∞ if none is set or readable. */
    static double quotaCores(Path procCgroup, Path root) {
        double min = Double.POSITIVE_INFINITY;
        try {
            for (String line : Files.readAllLines(procCgroup)) {
                String[] f = line.split(":", 3); // id:controllers:path
                if (f.length < 3 || !(f[1].isEmpty() || List.of(f[1].split(",")).contains("cpu"))) {
                    continue;
                }
                Path base = f[1].isEmpty() ? root : root.resolve(f[1]);
                for (Path dir = resolve(base, f[2]); dir != null && dir.startsWith(root); dir = dir.getParent()) {
                    min = Math.min(min, f[1].isEmpty() ? v2Quota(dir) : v1Quota(dir));
                }
            }
        } catch (IOException | RuntimeException e) {
            return min;
        }
        return min;
    }

    private static Path resolve(Path base, String cgroupPath) {
        String relative = cgroupPath.startsWith("/") ? cgroupPath.substring(1) : cgroupPath;
        return relative.isEmpty() ? base : base.resolve(relative);
    }

    /** "max 100000" = no limit; "40000 100000" = 0.4 core. */
    static double v2Quota(Path dir) {
        String[] f = read(dir.resolve("cpu.max")).split("\\s+");
        if (f.length != 2 || f[0].equals("max")) {
            return Double.POSITIVE_INFINITY;
        }
        return ratio(f[0], f[1]);
    }

    private static double v1Quota(Path dir) {
        String quota = read(dir.resolve("cpu.cfs_quota_us"));
        return quota.isEmpty() || quota.startsWith("-") ? Double.POSITIVE_INFINITY
                : ratio(quota, read(dir.resolve("cpu.cfs_period_us")));
    }

    private static double ratio(String quota, String period) {
        try {
            double p = Double.parseDouble(period);
            double q = Double.parseDouble(quota);
            return p > 0 && q > 0 ? q / p : Double.POSITIVE_INFINITY;
        } catch (NumberFormatException e) {
            return Double.POSITIVE_INFINITY;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).trim().toLowerCase(Locale.ROOT);
        } catch (IOException e) {
            return "";
        }
    }
}
