package io.klink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TumblingCountWindowsTest {

    @Test
    void windowEndsFollowSizeAndOffset() {
        TumblingCountWindows plain = new TumblingCountWindows(1000, 0);
        assertEquals(1000, plain.windowEnd(0));
        assertEquals(1000, plain.windowEnd(999));
        assertEquals(2000, plain.windowEnd(1000));
        TumblingCountWindows shifted = new TumblingCountWindows(1000, 250);
        assertEquals(250, shifted.windowEnd(249));
        assertEquals(1250, shifted.windowEnd(250));
        assertEquals(-750, shifted.windowEnd(-800));
    }

    @Test
    void aWindowFiresOnTheFirstWatermarkAtOrPastItsLastMillisecond() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        windows.add("a", 10);
        windows.add("a", 20);
        windows.add("b", 999);
        assertTrue(windows.advance(998, 5_000).isEmpty());

        List<Envelope> out = windows.advance(999, 6_000);

        assertEquals(3, out.size());
        Envelope firing = out.get(2);
        assertEquals(Envelope.FIRING, firing.kind);
        assertEquals(0, firing.windowStart);
        assertEquals(1000, firing.timestamp);
        assertEquals(999, firing.sweepingWatermark);
        assertEquals(6_000, firing.wallTime);
        assertEquals(2, firing.keys);
        assertEquals(3, firing.value);
        long a = out.stream().filter(e -> "a".equals(e.key)).findFirst().orElseThrow().value;
        assertEquals(2, a);
    }

    @Test
    void eventsOfAFiredWindowAreDroppedAndCountedOnTheNextFiring() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        windows.add("a", 10);
        windows.advance(1500, 0);
        assertFalse(windows.add("a", 500));
        assertFalse(windows.add("a", 999));
        assertTrue(windows.add("a", 1000));
        List<Envelope> out = windows.advance(1999, 0);
        assertEquals(2, out.get(out.size() - 1).lateDropped);
    }

    @Test
    void markersWaitForTheirWindowAndLeaveRightAfterItsOutput() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        Envelope marker = Envelope.marker(1200);
        windows.add("a", 1100);
        assertTrue(windows.holdMarker(marker));
        assertTrue(windows.advance(1500, 0).isEmpty());

        List<Envelope> out = windows.advance(2500, 0);

        assertEquals(List.of(Envelope.RESULT, Envelope.FIRING, Envelope.MARKER), out.stream().map(e -> e.kind).toList());
        assertSame(marker, out.get(2));
    }

    @Test
    void aMarkerWhoseWindowAlreadyFiredIsNotHeld() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        windows.advance(5000, 0);
        assertFalse(windows.holdMarker(Envelope.marker(4200)));
    }

    @Test
    void windowsWithOnlyMarkersReleaseThemWithoutAFiring() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        windows.holdMarker(Envelope.marker(300));
        List<Envelope> out = windows.advance(999, 0);
        assertEquals(List.of(Envelope.MARKER), out.stream().map(e -> e.kind).toList());
    }

    @Test
    void severalWindowsFireInDeadlineOrderOnOneWatermark() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        windows.add("a", 2500);
        windows.add("a", 500);
        windows.add("a", 1500);
        List<Long> firedEnds = windows.advance(10_000, 0).stream()
                .filter(e -> e.kind == Envelope.FIRING).map(e -> e.timestamp).toList();
        assertEquals(List.of(1000L, 2000L, 3000L), firedEnds);
        assertEquals(0, windows.openWindows());
    }

    @Test
    void aWatermarkThatDoesNotAdvanceDoesNothing() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        windows.add("a", 10);
        windows.advance(5000, 0);
        windows.add("b", 5500);
        assertTrue(windows.advance(4000, 0).isEmpty());
        assertEquals(5000, windows.watermark());
    }

    @Test
    void sizeMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new TumblingCountWindows(0, 0));
    }

    @Test
    void nextDeadlineIsTheEarliestOpenWindowsEnd() {
        TumblingCountWindows windows = new TumblingCountWindows(1000, 0);
        assertEquals(Long.MAX_VALUE, windows.nextDeadline());
        windows.add("a", 2500);
        windows.add("a", 1200);
        assertEquals(2000, windows.nextDeadline());
        windows.advance(1999, 0);
        assertEquals(3000, windows.nextDeadline());
        windows.advance(2999, 0);
        assertEquals(Long.MAX_VALUE, windows.nextDeadline());
    }
}
