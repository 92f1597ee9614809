package io.klink.scheduler;

import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Map;

/**
 * The heap this JVM occupied right after its latest garbage collection: the live data it holds. (Heap used at an
 * arbitrary moment includes garbage and sits well above it between collections.) What Klink's memory management
 * compares with b, and what the late-state runs report as the windows' memory.
 */
public final class LiveHeap {

    private static final List<GarbageCollectorMXBean> GC_BEANS = ManagementFactory.getGarbageCollectorMXBeans();
    private static final List<String> HEAP_POOLS = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).toList();

    private LiveHeap() {}

    /** Bytes of the heap pools after the latest collection; -1 before the first one. */
    public static long bytes() {
        GcInfo latest = null;
        for (GarbageCollectorMXBean gc : GC_BEANS) {
            if (gc instanceof com.sun.management.GarbageCollectorMXBean sun) {
                GcInfo info = sun.getLastGcInfo();
                if (info != null && (latest == null || info.getEndTime() > latest.getEndTime())) {
                    latest = info;
                }
            }
        }
        if (latest == null) {
            return -1;
        }
        long used = 0;
        Map<String, MemoryUsage> afterGc = latest.getMemoryUsageAfterGc();
        for (String pool : HEAP_POOLS) {
            MemoryUsage after = afterGc.get(pool);
            if (after != null) {
                used += after.getUsed();
            }
        }
        return used;
    }

    /** The live heap as a fraction of the maximum heap, at most 1; 0 before the first collection. */
    public static double fraction() {
        long max = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax();
        long used = bytes();
        return used < 0 || max <= 0 ? 0.0 : Math.min(1.0, (double) used / max);
    }
}
