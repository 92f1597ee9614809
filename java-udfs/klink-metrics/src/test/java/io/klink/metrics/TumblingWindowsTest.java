package io.klink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The template's skeleton, with the smallest workload window: one RESULT per window listing its keys. */
class TumblingWindowsTest {

    /** Keeps a window's keys in arrival order; fires one RESULT (key = keys joined, value = how many). */
    private static final class KeyLists extends TumblingWindows<List<String>> {
        final List<Long> firedEnds = new ArrayList<>();

        KeyLists(long sizeMs, long offsetMs) {
            super(sizeMs, offsetMs);
        }

        @Override
        protected List<String> newWindow() {
            return new ArrayList<>();
        }

        @Override
        protected void addTo(List<String> window, Envelope event) {
            window.add(event.key);
        }

        @Override
        protected Fired emitResults(List<String> window, long end, List<Envelope> out) {
            firedEnds.add(end);
            out.add(Envelope.result(String.join(",", window), end, window.size()));
            return new Fired(1, window.size());
        }
    }

    private static Envelope event(String key, long time) {
        return Envelope.data(key, time, 0);
    }

    private static List<Byte> kinds(List<Envelope> out) {
        return out.stream().map(e -> e.kind).toList();
    }

    @Test
    void eachWindowReceivesOnlyItsOwnEvents() {
        KeyLists windows = new KeyLists(1000, 0);
        windows.add(event("a", 100));
        windows.add(event("b", 1100));
        windows.add(event("c", 900));

        List<Envelope> out = windows.advance(1999, 0);

        assertEquals("a,c", out.get(0).key);
        assertEquals("b", out.get(2).key);
        assertEquals(List.of(1000L, 2000L), windows.firedEnds);
    }

    @Test
    void theFiringSummarisesWhatTheHookReported() {
        KeyLists windows = new KeyLists(1000, 250);
        windows.add(event("a", 300));
        windows.add(event("b", 400));

        List<Envelope> out = windows.advance(1300, 7_000);

        assertEquals(List.of(Envelope.RESULT, Envelope.FIRING), kinds(out));
        Envelope firing = out.get(1);
        assertEquals(250, firing.windowStart);
        assertEquals(1250, firing.timestamp);
        assertEquals(1300, firing.sweepingWatermark);
        assertEquals(7_000, firing.wallTime);
        assertEquals(1, firing.keys);
        assertEquals(2, firing.value);
        assertEquals(0, firing.lateDropped);
    }

    @Test
    void lateEventsNeverReachTheHookAndAreCountedOnceOnTheNextFiring() {
        KeyLists windows = new KeyLists(1000, 0);
        windows.add(event("a", 10));
        windows.advance(999, 0);
        assertFalse(windows.add(event("late", 500)));
        assertTrue(windows.add(event("b", 1500)));

        List<Envelope> next = windows.advance(1999, 0);
        windows.add(event("c", 2500));
        List<Envelope> after = windows.advance(2999, 0);

        assertEquals("b", next.get(0).key);
        assertEquals(1, next.get(1).lateDropped);
        assertEquals(0, after.get(1).lateDropped);
    }

    @Test
    void aMarkerLeavesRightAfterTheFiringOfTheWindowItWasCreatedIn() {
        KeyLists windows = new KeyLists(1000, 0);
        Envelope marker = Envelope.marker(1500);
        windows.add(event("a", 1200));
        assertTrue(windows.holdMarker(marker));

        List<Envelope> out = windows.advance(1999, 0);

        assertEquals(List.of(Envelope.RESULT, Envelope.FIRING, Envelope.MARKER), kinds(out));
        assertSame(marker, out.get(2));
        assertFalse(windows.holdMarker(Envelope.marker(1700)), "its window fired: forward it now");
    }

    @Test
    void aWindowHoldingOnlyMarkersReleasesThemWithoutCallingTheHook() {
        KeyLists windows = new KeyLists(1000, 0);
        windows.holdMarker(Envelope.marker(300));

        assertEquals(List.of(Envelope.MARKER), kinds(windows.advance(999, 0)));
        assertTrue(windows.firedEnds.isEmpty());
    }

    @Test
    void deadlinesAndOpenWindowsFollowTheWindowsWithData() {
        KeyLists windows = new KeyLists(1000, 0);
        assertEquals(Long.MAX_VALUE, windows.nextDeadline());
        windows.add(event("a", 2500));
        windows.add(event("b", 1200));
        assertEquals(2000, windows.nextDeadline());
        assertEquals(2, windows.openWindows());

        windows.advance(2000, 0);

        assertEquals(3000, windows.nextDeadline());
        assertEquals(1, windows.openWindows());
    }

    @Test
    void windowsAlignAsFlinksAndNeedAPositiveSize() {
        KeyLists windows = new KeyLists(1000, -750);
        assertEquals(250, windows.windowEnd(249));
        assertEquals(1250, windows.windowEnd(250));
        assertEquals(250, windows.windowStart(1250));
        assertEquals(TumblingWindows.windowEnd(-800, 1000, 250), windows.windowEnd(-800));
        assertThrows(IllegalArgumentException.class, () -> new KeyLists(0, 0));
    }
}
