package io.klink.generator;

/** A clock that only moves when told to (parkNanos moves it by the requested amount). */
final class ScriptedClock implements Clock {

    static final long WALL_AT_ZERO_MS = 1_700_000_000_000L;

    long now;
    int parks;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public long currentTimeMillis() {
        return WALL_AT_ZERO_MS + now / 1_000_000L;
    }

    @Override
    public void parkNanos(long nanos) {
        parks++;
        now += Math.max(1, nanos);
    }

    void advance(long nanos) {
        now += nanos;
    }
}
