package io.klink.metrics;

import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

import java.io.IOException;

/**
 * The wire and state format of {@link Envelope}: one header byte (the kind and which optional fields follow), then
 * only the fields that are set, integers as zig-zag varints. A trip is about 40 bytes and a rides partial about
 * 35, where Flink's PojoSerializer wrote every field of every kind (117 bytes a partial, measured in tasks.csv's
 * bytes_in): over a shaped shuffle link the bytes per record decide the throughput (docs/combiner.md).
 */
public final class EnvelopeSerializer extends TypeSerializerSingleton<Envelope> {

    public static final EnvelopeSerializer INSTANCE = new EnvelopeSerializer();

    private static final int KIND_BITS = 0x07;
    private static final int HAS_KEY = 0x08;
    private static final int HAS_FIELDS = 0x10;
    private static final int HAS_WEIGHT = 0x20;
    private static final int HAS_PAYLOAD = 0x40;
    private static final int HAS_FIRING = 0x80;

    @Override
    public void serialize(Envelope e, DataOutputView out) throws IOException {
        out.writeByte(header(e));
        if (e.key != null) {
            StringValue.writeString(e.key, out);
        }
        Varints.writeLong(e.timestamp, out);
        Varints.writeLong(e.value, out);
        Varints.writeLong(e.wallTime, out);
        if (hasFiringFields(e)) {
            Varints.writeLong(e.windowStart, out);
            Varints.writeLong(e.sweepingWatermark, out);
            Varints.writeLong(e.keys, out);
            Varints.writeLong(e.lateDropped, out);
        }
        if (e.fields != null) {
            Varints.writeLong(e.fields.length, out);
            for (double field : e.fields) {
                out.writeDouble(field);
            }
        }
        if (e.weight != 1.0) {
            out.writeDouble(e.weight);
        }
        if (e.payload != null) {
            StringValue.writeString(e.payload, out);
        }
    }

    private static int header(Envelope e) {
        if ((e.kind & ~KIND_BITS) != 0) {
            throw new IllegalArgumentException("envelope kind " + e.kind + " does not fit the header's 3 bits");
        }
        return e.kind
                | (e.key != null ? HAS_KEY : 0)
                | (e.fields != null ? HAS_FIELDS : 0)
                | (e.weight != 1.0 ? HAS_WEIGHT : 0)
                | (e.payload != null ? HAS_PAYLOAD : 0)
                | (hasFiringFields(e) ? HAS_FIRING : 0);
    }

    private static boolean hasFiringFields(Envelope e) {
        return e.windowStart != 0 || e.sweepingWatermark != 0 || e.keys != 0 || e.lateDropped != 0;
    }

    @Override
    public Envelope deserialize(DataInputView in) throws IOException {
        return deserialize(new Envelope(), in);
    }

    @Override
    public Envelope deserialize(Envelope reuse, DataInputView in) throws IOException {
        int header = in.readUnsignedByte();
        reuse.kind = (byte) (header & KIND_BITS);
        reuse.key = (header & HAS_KEY) != 0 ? StringValue.readString(in) : null;
        reuse.timestamp = Varints.readLong(in);
        reuse.value = Varints.readLong(in);
        reuse.wallTime = Varints.readLong(in);
        boolean firing = (header & HAS_FIRING) != 0;
        reuse.windowStart = firing ? Varints.readLong(in) : 0;
        reuse.sweepingWatermark = firing ? Varints.readLong(in) : 0;
        reuse.keys = firing ? Varints.readLong(in) : 0;
        reuse.lateDropped = firing ? Varints.readLong(in) : 0;
        reuse.fields = (header & HAS_FIELDS) != 0 ? readDoubles(in) : null;
        reuse.weight = (header & HAS_WEIGHT) != 0 ? in.readDouble() : 1.0;
        reuse.payload = (header & HAS_PAYLOAD) != 0 ? StringValue.readString(in) : null;
        return reuse;
    }

    private static double[] readDoubles(DataInputView in) throws IOException {
        double[] values = new double[(int) Varints.readLong(in)];
        for (int i = 0; i < values.length; i++) {
            values[i] = in.readDouble();
        }
        return values;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public Envelope copy(Envelope from) {
        return copy(from, new Envelope());
    }

    @Override
    public Envelope copy(Envelope from, Envelope reuse) {
        reuse.kind = from.kind;
        reuse.key = from.key;
        reuse.timestamp = from.timestamp;
        reuse.value = from.value;
        reuse.wallTime = from.wallTime;
        reuse.windowStart = from.windowStart;
        reuse.sweepingWatermark = from.sweepingWatermark;
        reuse.keys = from.keys;
        reuse.lateDropped = from.lateDropped;
        reuse.fields = from.fields == null ? null : from.fields.clone();
        reuse.weight = from.weight;
        reuse.payload = from.payload;
        return reuse;
    }

    @Override
    public Envelope createInstance() {
        return new Envelope();
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public TypeSerializerSnapshot<Envelope> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Restores {@link #INSTANCE} from a checkpoint's serializer snapshot. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Envelope> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
