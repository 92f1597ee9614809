package io.klink.metrics;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Bytes and CPU per envelope: {@link EnvelopeSerializer} against the PojoSerializer Flink used for Envelope before
 * 2026-11-28, on the records that dominate the measured pipelines. Run by benchmarks/envelope_serializer.sh (not a
 * test: timings belong in benchmarks).
 */
public final class EnvelopeSerializerBenchmark {

    private static final long NOW = 1_796_000_000_000L;

    public static void main(String[] args) throws IOException {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Map<String, TypeSerializer<Envelope>> serializers = new LinkedHashMap<>();
        serializers.put("compact", EnvelopeSerializer.INSTANCE);
        serializers.put("pojo", pojoSerializer());
        System.out.println("record,serializer,bytes,round,ns_per_record");
        for (Map.Entry<String, Envelope> record : samples().entrySet()) {
            for (int round = 0; round <= rounds; round++) {  // round 0 warms the JIT and is printed as such
                for (Map.Entry<String, TypeSerializer<Envelope>> serializer : serializers.entrySet()) {
                    double ns = nanosPerRoundTrip(serializer.getValue(), record.getValue(), records);
                    System.out.printf("%s,%s,%d,%d,%.1f%n", record.getKey(), serializer.getKey(),
                            bytes(serializer.getValue(), record.getValue()), round, ns);
                }
            }
        }
    }

    /** The PojoSerializer Flink's type extraction chose for Envelope while it had no @TypeInfo. */
    static TypeSerializer<Envelope> pojoSerializer() {
        Map<String, TypeInformation<?>> fields = new LinkedHashMap<>();
        fields.put("kind", Types.BYTE);
        fields.put("key", Types.STRING);
        for (String name : new String[] {"timestamp", "value", "wallTime", "windowStart", "sweepingWatermark", "keys",
                "lateDropped"}) {
            fields.put(name, Types.LONG);
        }
        fields.put("fields", Types.PRIMITIVE_ARRAY(Types.DOUBLE));
        fields.put("weight", Types.DOUBLE);
        fields.put("payload", Types.STRING);
        return Types.POJO(Envelope.class, fields).createSerializer(new SerializerConfigImpl());
    }

    static Map<String, Envelope> samples() {
        Map<String, Envelope> samples = new LinkedHashMap<>();
        Envelope partial = Envelope.data("region-17342", NOW, 12);
        partial.fields = new double[] {19.0, 41.5};
        samples.put("rides-partial", partial);
        Envelope trip = Envelope.data("region-17342", NOW, 1);
        trip.fields = new double[] {2.0, 17.25};
        samples.put("rides-trip", trip);
        samples.put("ysb-event", Envelope.data("4f3c2b1a-9d8e-4c7b-a6f5-e4d3c2b1a098", NOW, 2));
        samples.put("marker", Envelope.marker(NOW));
        return samples;
    }

    static int bytes(TypeSerializer<Envelope> serializer, Envelope record) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(record, out);
        return out.length();
    }

    private static double nanosPerRoundTrip(TypeSerializer<Envelope> serializer, Envelope record, int records)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        DataInputDeserializer in = new DataInputDeserializer();
        Envelope reuse = new Envelope();
        long checksum = 0;
        long start = System.nanoTime();
        for (int i = 0; i < records; i++) {
            out.clear();
            serializer.serialize(record, out);
            in.setBuffer(out.getSharedBuffer(), 0, out.length());
            checksum += serializer.deserialize(reuse, in).value;
        }
        long elapsed = System.nanoTime() - start;
        if (checksum != record.value * records) {
            throw new IllegalStateException("round trip changed the record");
        }
        return (double) elapsed / records;
    }
}
