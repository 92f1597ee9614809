package io.klink.workloads.tail;

import org.apache.flink.api.common.functions.Partitioner;

/** Sends each record to the downstream task its upstream {@link Stage} chose ({@link TailRecord#route}). */
public final class Routes implements Partitioner<Integer> {

    @Override
    public int partition(Integer route, int channels) {
        return route % channels;
    }
}
