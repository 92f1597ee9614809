package io.klink.metrics;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import java.lang.reflect.Type;
import java.util.Map;

/** Flink's type information for {@link Envelope}: every stream and state of envelopes uses {@link EnvelopeSerializer}. */
public final class EnvelopeTypeInfo extends TypeInformation<Envelope> {

    /** Named by {@link Envelope}'s {@code @TypeInfo}, so {@code TypeInformation.of(Envelope.class)} and type
     *  extraction from user functions find this type information. */
    public static final class Factory extends TypeInfoFactory<Envelope> {
        @Override
        public TypeInformation<Envelope> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return new EnvelopeTypeInfo();
        }
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<Envelope> getTypeClass() {
        return Envelope.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<Envelope> createSerializer(SerializerConfig config) {
        return EnvelopeSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "Envelope";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof EnvelopeTypeInfo;
    }

    @Override
    public int hashCode() {
        return EnvelopeTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object other) {
        return other instanceof EnvelopeTypeInfo;
    }
}
