package io.klink.agent;

class FakeProbe implements TaskProbe {
    volatile long in;
    volatile long out;
    volatile long queued;

    @Override
    public long recordsIn() {
        return in;
    }

    @Override
    public long recordsOut() {
        return out;
    }

    @Override
    public long queuedBuffers() {
        return queued;
    }
}
