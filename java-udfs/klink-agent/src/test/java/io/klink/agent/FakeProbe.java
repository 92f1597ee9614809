package io.klink.agent;

class FakeProbe implements TaskProbe {
    volatile long in;
    volatile long out;
    volatile long queuedBytes;
    volatile long bytesIn;

    @Override
    public long recordsIn() {
        return in;
    }

    @Override
    public long recordsOut() {
        return out;
    }

    @Override
    public long queuedBytes() {
        return queuedBytes;
    }

    @Override
    public long bytesIn() {
        return bytesIn;
    }
}
