package io.klink.metrics;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EnvelopeSerializerTest {

    private static final long NOW = 1_796_000_000_000L;

    @Test
    void flinkFindsTheCompactSerializerForEnvelopes() {
        TypeInformation<Envelope> info = TypeInformation.of(Envelope.class);
        assertInstanceOf(EnvelopeTypeInfo.class, info);
        assertInstanceOf(EnvelopeSerializer.class, info.createSerializer(null));
    }

    @Test
    void everyKindSurvivesTheRoundTrip() throws IOException {
        Envelope partial = Envelope.data("region-17342", NOW, 12);
        partial.fields = new double[] {19.0, 41.5};
        Envelope weighted = Envelope.data("ad-3", NOW, 1);
        weighted.weight = 2.5;
        weighted.payload = "xxxxxxxx";
        for (Envelope e : new Envelope[] {partial, weighted, Envelope.progress(NOW), Envelope.marker(NOW),
                Envelope.probe(Long.MIN_VALUE, NOW), Envelope.result("campaign-9", NOW, 1234),
                Envelope.firing(NOW - 3000, NOW, NOW - 200, NOW + 50, 100, 30_000, 7),
                Envelope.substream(NOW, NOW + 5, 10, 5, 0.5, 5, 0)}) {
            assertSameFields(e, roundTrip(e));
        }
    }

    @Test
    void randomEnvelopesSurviveTheRoundTrip() throws IOException {
        Random random = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            Envelope e = randomEnvelope(random);
            assertSameFields(e, roundTrip(e));
        }
    }

    @Test
    void aRidesPartialIsLessThanAThirdOfWhatThePojoSerializerWrote() throws IOException {
        Envelope partial = Envelope.data("region-17342", NOW, 12);
        partial.fields = new double[] {19.0, 41.5};
        int bytes = serialize(partial).length;
        assertTrue(bytes <= 39, "a rides partial took " + bytes + " bytes (the PojoSerializer's: 117)");
    }

    @Test
    void thePojoBaselineWritesWhatTheRunsMeasuredBeforeTheChange() throws IOException {
        // tasks.csv's bytes_in per partial at the window was 117.3 with the PojoSerializer, 45.1 with the compact
        // one: 111 and 39 bytes of record, a 4-byte length each and about 2 bytes of watermarks' and buffers' share
        // (docs/data/adcom-minibatch-surge-short-20261128-134855 and -154411)
        Envelope partial = EnvelopeSerializerBenchmark.samples().get("rides-partial");
        assertEquals(39, EnvelopeSerializerBenchmark.bytes(EnvelopeSerializer.INSTANCE, partial));
        assertEquals(111, EnvelopeSerializerBenchmark.bytes(EnvelopeSerializerBenchmark.pojoSerializer(), partial));
    }

    @Test
    void copiesAreDeepForTheFieldsArray() {
        Envelope e = Envelope.substream(NOW, NOW, 1.0, 2.0);
        Envelope copy = EnvelopeSerializer.INSTANCE.copy(e);
        assertNotSame(e.fields, copy.fields);
        assertSameFields(e, copy);
    }

    @Test
    void theSnapshotRestoresTheSameSerializer() throws IOException {
        TypeSerializerSnapshot<Envelope> snapshot = EnvelopeSerializer.INSTANCE.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        TypeSerializerSnapshot<Envelope> restored = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
        assertEquals(EnvelopeSerializer.INSTANCE, restored.restoreSerializer());
        TypeSerializerSchemaCompatibility<Envelope> compatibility =
                EnvelopeSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertTrue(compatibility.isCompatibleAsIs());
    }

    @Test
    void aKindBeyondTheHeaderIsRefused() {
        Envelope e = new Envelope();
        e.kind = 8;
        assertThrows(IllegalArgumentException.class, () -> serialize(e));
    }

    private static Envelope randomEnvelope(Random random) {
        Envelope e = new Envelope();
        e.kind = (byte) random.nextInt(7);
        e.key = random.nextBoolean() ? null : "k" + random.nextInt();
        e.timestamp = randomLong(random);
        e.value = randomLong(random);
        e.wallTime = randomLong(random);
        if (random.nextBoolean()) {
            e.windowStart = randomLong(random);
            e.sweepingWatermark = randomLong(random);
            e.keys = randomLong(random);
            e.lateDropped = randomLong(random);
        }
        if (random.nextBoolean()) {
            e.fields = random.doubles(random.nextInt(5)).toArray();
        }
        e.weight = random.nextBoolean() ? 1.0 : random.nextDouble() * 10;
        e.payload = random.nextBoolean() ? null : "p".repeat(random.nextInt(40));
        return e;
    }

    private static long randomLong(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) - 500;
            case 2 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
            default -> random.nextLong();
        };
    }

    private static byte[] serialize(Envelope e) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        EnvelopeSerializer.INSTANCE.serialize(e, out);
        return out.getCopyOfBuffer();
    }

    private static Envelope roundTrip(Envelope e) throws IOException {
        byte[] bytes = serialize(e);
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        Envelope back = EnvelopeSerializer.INSTANCE.deserialize(in);
        assertEquals(0, in.available(), "bytes left after reading an envelope");
        DataOutputSerializer copied = new DataOutputSerializer(64);
        EnvelopeSerializer.INSTANCE.copy(new DataInputDeserializer(bytes), copied);
        assertArrayEquals(bytes, copied.getCopyOfBuffer());
        return back;
    }

    private static void assertSameFields(Envelope expected, Envelope actual) {
        assertEquals(expected.kind, actual.kind);
        assertEquals(expected.key, actual.key);
        assertEquals(expected.timestamp, actual.timestamp);
        assertEquals(expected.value, actual.value);
        assertEquals(expected.wallTime, actual.wallTime);
        assertEquals(expected.windowStart, actual.windowStart);
        assertEquals(expected.sweepingWatermark, actual.sweepingWatermark);
        assertEquals(expected.keys, actual.keys);
        assertEquals(expected.lateDropped, actual.lateDropped);
        assertArrayEquals(expected.fields, actual.fields);
        assertEquals(expected.weight, actual.weight);
        assertEquals(expected.payload, actual.payload);
    }
}
