package io.klink.workloads.ysb;

import io.klink.metrics.Envelope;
import org.apache.flink.api.common.functions.FilterFunction;

/** YSB step 2: keep only "view" events; instrumentation envelopes always pass. */
public class ViewFilter implements FilterFunction<Envelope> {
    @Override
    public boolean filter(Envelope e) {
        return !e.isData() || e.value == YsbEventDeserializer.VIEW;
    }
}
