package io.klink.workloads.late;

import io.klink.metrics.Envelope;
import io.klink.workloads.lrb.LrbOperators;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Linear Road's segment statistics (Arasu et al., VLDB 2004) with late events: the AION paper's LRB window
 * (seed aion-late-events-esteves.txt §5: position reports "aggregated in a minute-long window to compute the number
 * of vehicles and their average speed for every segment of every expressway") over {@link LateWindowJob}'s windows.
 * The events are klink-generator's LRB position reports ({@code 0,time_s,vid,speed,xway,lane,dir,seg,pos,
 * event_time}), keyed by segment ({@code xway.dir.seg}, {@link LrbOperators#segmentKey}); per key and window
 * {@link SegmentStatistics}.
 */
public final class LrbSegmentsJob {

    private LrbSegmentsJob() {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        LateWindowJob.build(env, configJson, new Parse(), new SegmentStatistics());
    }

    /** A position report -> key = its segment, fields[0] = its speed, payload = its vehicle id; malformed -> key
     *  null (dropped next), as {@link LateWindowJob.Parse} does. */
    public static final class Parse implements MapFunction<Envelope, Envelope> {
        @Override
        public Envelope map(Envelope e) {
            if (e.isData()) {
                double[] report = LrbOperators.Parse.parse(e.key);
                e.key = null;
                e.fields = null;
                if (report != null) {
                    e.key = LrbOperators.segmentKey((int) report[LrbOperators.F_XWAY],
                            (int) report[LrbOperators.F_DIR], (int) report[LrbOperators.F_SEG]);
                    e.fields = new double[] {report[LrbOperators.F_SPEED]};
                    e.payload = Integer.toString((int) report[LrbOperators.F_VID]);
                }
            }
            return e;
        }
    }

    /**
     * One segment's statistics over a window's reports: the reports, the distinct vehicles that sent them (by
     * vehicle id, the payload) and the mean of their speeds, every report weighing the same (Linear Road's LAV
     * averages over the 5 minutes before the current one; this is one window's own mean).
     */
    public static final class SegmentStatistics implements LateWindowFunction {
        @Override
        public List<String> fields() {
            return List.of("reports", "vehicles", "average_speed");
        }

        @Override
        public List<Double> apply(List<LateEvent> events) {
            Set<String> vehicles = new HashSet<>();
            double speeds = 0;
            for (LateEvent e : events) {
                vehicles.add(e.payload());
                speeds += e.value();
            }
            int reports = events.size();
            return List.of((double) reports, (double) vehicles.size(), reports == 0 ? 0 : speeds / reports);
        }
    }
}
