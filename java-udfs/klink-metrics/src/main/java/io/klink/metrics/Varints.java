package io.klink.metrics;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** Zig-zag variable-length longs: 7 bits a byte, so small counts take one byte and epoch milliseconds six. */
final class Varints {

    private Varints() {}

    static void writeLong(long value, DataOutput out) throws IOException {
        long zigzag = (value << 1) ^ (value >> 63);
        while ((zigzag & ~0x7FL) != 0) {
            out.writeByte((int) ((zigzag & 0x7F) | 0x80));
            zigzag >>>= 7;
        }
        out.writeByte((int) zigzag);
    }

    static long readLong(DataInput in) throws IOException {
        long zigzag = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            zigzag |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (zigzag >>> 1) ^ -(zigzag & 1);
            }
        }
        throw new IOException("malformed varint: more than 10 bytes");
    }
}
