package io.klink.workloads.rides;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The combiner's requests as klinkctl (klinkctl/run/combiner_relay.py) expects them, against a fake klinkctl. */
class CombinerChannelTest {

    private static final FakeKlinkctl.Answer OK = new FakeKlinkctl.Answer(200, "");

    @Test
    void theControllerPostsItsIntervalNamingStackRunAndQuery() throws Exception {
        try (FakeKlinkctl klinkctl = new FakeKlinkctl(request -> OK)) {
            new CombinerChannel(klinkctl.address(), "q03").publish(new Interval(4, 250, 1_000_100));
            FakeKlinkctl.Request sent = klinkctl.requests.get(0);
            assertEquals("POST /combiner/interval", sent.method() + " " + sent.path());
            assertEquals("stack=stack1&run=run-1&query=q03", sent.query());
            assertEquals(new Interval(4, 250, 1_000_100), Interval.fromJson(sent.body()));
            assertEquals("{\"period\":4,\"intervalMs\":250,\"fromMs\":1000100}", sent.body());
        }
    }

    @Test
    void anInstanceGetsTheLatestIntervalOrNullWhenNoneCameMeanwhile() throws Exception {
        String latest = new Interval(5, 80, 42).toJson();
        try (FakeKlinkctl klinkctl = new FakeKlinkctl(request -> request.query().endsWith("seen=5")
                ? OK : new FakeKlinkctl.Answer(200, latest))) {
            CombinerChannel channel = new CombinerChannel(klinkctl.address(), "q00");
            assertEquals(new Interval(5, 80, 42), channel.awaitChange(0));
            assertNull(channel.awaitChange(5));
            assertEquals("GET /combiner/interval", klinkctl.requests.get(0).method() + " "
                    + klinkctl.requests.get(0).path());
            assertEquals("stack=stack1&run=run-1&query=q00&seen=0", klinkctl.requests.get(0).query());
        }
    }

    @Test
    void rowsGoUnderCombinerCsvsHeaderAndARefusalCarriesKlinkctlsReason() throws Exception {
        try (FakeKlinkctl klinkctl = new FakeKlinkctl(request -> request.path().equals("/combiner/rows")
                ? OK : new FakeKlinkctl.Answer(409, "run 'run-1' is not klinkctl's run r2\n"))) {
            CombinerChannel channel = new CombinerChannel(klinkctl.address(), "q00");
            channel.postRows(List.of("1,q00,1\n", "2,q00,2\n"));
            assertEquals(CombinerChannel.COLUMNS + "\n1,q00,1\n2,q00,2\n", klinkctl.requests.get(0).body());
            IOException refused = assertThrows(IOException.class, () -> channel.awaitChange(0));
            assertEquals("klinkctl answered 409: run 'run-1' is not klinkctl's run r2", refused.getMessage());
        }
    }

    @Test
    void aRowHasEveryInstancesUtilisationAndTheDecision() {
        String row = CombinerChannel.row(7, "q01", 3, new double[] {0.1, 0.25},
                new PiController.Decision(0.175, false, -0.325, 20), "adcom");
        assertEquals("7,q01,3,0.1000;0.2500,0.1750,false,-0.3250,20,adcom\n", row);
        assertEquals(CombinerChannel.COLUMNS.split(",").length, row.strip().split(",").length);
    }

    @Test
    void aJobWithoutKlinkctlsAddressIsRefusedWhenItIsBuilt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CombinerChannel.Address("", "s", "r"));
        assertTrue(e.getMessage().contains("controlUrl is empty"));
    }

    @Test
    void nobodyListeningIsAnIOExceptionNotAnError() throws Exception {
        String url;
        try (FakeKlinkctl gone = new FakeKlinkctl(request -> OK)) {
            url = gone.url();
        }
        CombinerChannel channel = new CombinerChannel(new CombinerChannel.Address(url, "s", "r"), "q00");
        assertThrows(IOException.class, () -> channel.publish(new Interval(1, 20, 0)));
    }
}
