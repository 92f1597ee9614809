package io.klink.workloads.late;

import java.io.Serializable;
import java.util.List;

/**
 * AION's additional destaging policies (seed aion-late-events-esteves.txt §3.2, "Additional Policies"), each off
 * unless set, all keeping a window's ρ_min bootstrap set in memory:
 * <ul>
 *   <li>local, {@code idleMs} = τ: a window that got neither an event nor a watermark for τ of processing time is
 *       destaged;
 *   <li>global, {@code scarce}: while the heap's free fraction μ (after the latest GC) is below it ("moderately
 *       scarce"), windows are destaged one per tick, in {@code order}: {@code size} = the largest m-bucket first
 *       ("for faster savings"), {@code rate} = the slowest ingestion first ("to minimize window processing delay");
 *   <li>global, {@code veryScarce}: while μ is below it (the paper's example: 10 %), every window is destaged.
 * </ul>
 * The standard policy's destaging at expiry (local policy 1) always applies.
 */
public record DestagePolicies(long idleMs, double scarce, double veryScarce, String order) implements Serializable {

    /** Every {@code --destage-order} (klink-catalog publishes them). */
    public static final List<String> ORDERS = List.of("size", "rate");
    public static final DestagePolicies NONE = new DestagePolicies(0, 0, 0, ORDERS.get(0));

    public DestagePolicies {
        if (idleMs < 0 || !(scarce >= 0 && scarce < 1) || !(veryScarce >= 0 && veryScarce < 1)
                || (scarce > 0 && veryScarce > scarce) || !ORDERS.contains(order)) {
            throw new IllegalArgumentException("destaging policies need τ >= 0, thresholds in [0, 1) with very scarce "
                    + "<= moderately scarce, and an order in " + ORDERS + "; got " + idleMs + " ms, " + scarce + ", "
                    + veryScarce + ", " + order);
        }
    }

    boolean anyGlobal() {
        return scarce > 0 || veryScarce > 0;
    }
}
