package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuBudgetTest {

    @Test
    void theSmallestQuotaOnThePathToTheRootCounts(@TempDir Path tmp) throws Exception {
        Path root = tmp.resolve("cgroup");
        Path group = Files.createDirectories(root.resolve("klink/tm"));
        Files.writeString(root.resolve("cpu.max"), "max 100000\n");
        Files.writeString(root.resolve("klink/cpu.max"), "150000 100000\n");
        Files.writeString(group.resolve("cpu.max"), "4000 10000\n");
        Path self = Files.writeString(tmp.resolve("self"), "0::/klink/tm\n");
        assertEquals(0.4, CpuBudget.quotaCores(self, root), 1e-9);
    }

    @Test
    void noQuotaMeansUnlimited(@TempDir Path tmp) throws Exception {
        Path root = Files.createDirectories(tmp.resolve("cgroup"));
        Files.writeString(root.resolve("cpu.max"), "max 100000\n");
        Path self = Files.writeString(tmp.resolve("self"), "0::/\n");
        assertEquals(Double.POSITIVE_INFINITY, CpuBudget.quotaCores(self, root));
        assertEquals(Double.POSITIVE_INFINITY, CpuBudget.quotaCores(tmp.resolve("missing"), root));
    }

    @Test
    void cgroupV1QuotaIsReadFromTheCpuHierarchy(@TempDir Path tmp) throws Exception {
        Path root = tmp.resolve("cgroup");
        Path group = Files.createDirectories(root.resolve("cpu,cpuacct/klink"));
        Files.writeString(group.resolve("cpu.cfs_quota_us"), "25000\n");
        Files.writeString(group.resolve("cpu.cfs_period_us"), "100000\n");
        Path self = Files.writeString(tmp.resolve("self"), "4:memory:/klink\n3:cpu,cpuacct:/klink\n");
        assertEquals(0.25, CpuBudget.quotaCores(self, root), 1e-9);
    }

    @Test
    void theBudgetNeverExceedsTheProcessorsThisJvmMayUse() {
        double cores = CpuBudget.cores();
        assertEquals(true, cores > 0 && cores <= Runtime.getRuntime().availableProcessors());
    }
}
