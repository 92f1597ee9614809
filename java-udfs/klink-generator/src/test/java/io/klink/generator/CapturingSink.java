package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/** Keeps every sent event (topic, JSON, send time on the scripted clock). */
final class CapturingSink implements EventSink {

    record Sent(int topic, String json, long atNanos) {
    }

    final List<Sent> sent = new ArrayList<>();
    private final ScriptedClock clock;
    /** Called with the 0-based index of each send, after it is recorded (e.g. to stall the clock). */
    IntConsumer afterSend = i -> { };

    CapturingSink(ScriptedClock clock) {
        this.clock = clock;
    }

    @Override
    public void send(int topic, byte[] value) {
        sent.add(new Sent(topic, new String(value, StandardCharsets.US_ASCII), clock.now));
        afterSend.accept(sent.size() - 1);
    }

    List<String> jsonOfTopic(int topic) {
        List<String> out = new ArrayList<>();
        for (Sent s : sent) {
            if (s.topic() == topic) {
                out.add(s.json());
            }
        }
        return out;
    }
}
