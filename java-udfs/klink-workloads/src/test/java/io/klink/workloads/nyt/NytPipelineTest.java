package io.klink.workloads.nyt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.klink.metrics.Envelope;
import io.klink.metrics.SlidingAggregateWindows;
import io.klink.workloads.common.CsvLineDeserializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The NYT chain (parse, validate, cell, derive) and its sliding window on hand-written trips. */
class NytPipelineTest {

    private static final String ID = "07290D3599E7A0D62097A346EFCC1FB5,E7750A37CAB07D0DFF0AF7E3573AC141,";

    /** A DEBS 2015 row: pickup (lon, lat), distance mi, fare $, trip s; total = fare + 1; event time ms. */
    private static String trip(double lon, double lat, double miles, double fare, int secs, long eventTime) {
        return ID + "2013-01-01 00:00:00,2013-01-01 00:02:00," + secs + "," + miles + "," + lon + "," + lat
                + ",-73.98,40.75,CSH," + fare + ",0.5,0.5,0,0," + (fare + 1) + "," + eventTime;
    }

    private static Envelope run(String line) throws IOException {
        Envelope e = new CsvLineDeserializer("NYT trip").deserialize(line.getBytes(StandardCharsets.US_ASCII));
        e = new NytOperators.Parse().map(e);
        if (!new NytOperators.Validate().filter(e)) {
            return null;
        }
        return new NytOperators.Derive().map(new NytOperators.Cell().map(e));
    }

    @Test
    void cellsFollowTheDebsGrid() {
        // by hand: x = floor((lon - (-74.913585 - 0.005986/2)) / 0.005986) + 1,
        //          y = floor(((41.474937 + 0.004491556/2) - lat) / 0.004491556) + 1
        assertEquals("156.161", NytGrid.cell(-73.985, 40.758));
        assertEquals("162.156", NytGrid.cell(-73.95, 40.78));
        assertEquals("1.1", NytGrid.cell(-74.913585, 41.474937));
        assertEquals(0, NytGrid.x(-72.0));
        assertEquals(0, NytGrid.y(0.0));
    }

    @Test
    void invalidTripsAreDropped() throws IOException {
        assertNull(run(trip(0, 0, 2, 10, 600, 5)));            // zero coordinates (common in DEBS data)
        assertNull(run(trip(-73.985, 40.758, 0, 10, 600, 5)));  // no distance
        assertNull(run(trip(-73.985, 40.758, 2, 0, 600, 5)));   // no fare
        assertNull(run(ID + "garbage,5"));                       // wrong column count
        assertThrows(IOException.class, () -> run(trip(-73.985, 40.758, 2, 10, 600, 5) + "x"));  // no event time
    }

    @Test
    void windowCountsAndAveragesPerCell() throws IOException {
        SlidingAggregateWindows windows = new SlidingAggregateWindows(2000, 1000, 0, NytOperators.AVERAGED);
        List<String> trips = List.of(
                trip(-73.985, 40.758, 2.0, 10.0, 600, 500),     // cell 156.161, windows ending 1000, 2000
                trip(-73.9851, 40.7581, 4.0, 20.0, 1200, 1500), // cell 156.161, windows ending 2000, 3000
                trip(-73.95, 40.78, 1.0, 6.0, 300, 1700),       // cell 162.156, windows ending 2000, 3000
                trip(0, 0, 1.0, 6.0, 300, 1800));               // dropped
        for (String line : trips) {
            Envelope e = run(line);
            if (e != null) {
                windows.add(e);
            }
        }
        Map<String, Envelope> at2000 = new HashMap<>();
        for (Envelope out : windows.advance(1999, 0)) {
            if (out.kind == Envelope.RESULT && out.timestamp == 2000) {
                at2000.put(out.key, out);
            }
        }
        Envelope busy = at2000.get("156.161");
        assertEquals(2, busy.value);
        assertEquals(15.0, busy.fields[NytOperators.A_FARE], 1e-9);      // (10 + 20) / 2
        assertEquals(3.0, busy.fields[NytOperators.A_DISTANCE], 1e-9);   // (2 + 4) / 2
        assertEquals(12.0, busy.fields[NytOperators.A_SPEED], 1e-9);     // 2 mi / 10 min = 4 mi / 20 min = 12 mph
        assertEquals(1, at2000.get("162.156").value);
        assertEquals(12.0, at2000.get("162.156").fields[NytOperators.A_SPEED], 1e-9);  // 1 mi / 5 min
        assertEquals(2, at2000.size());
    }
}
