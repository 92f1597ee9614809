package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.klink.scheduler.TaskInfo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The agent's end of the control channel against a stand-in for klinkctl's (the real one: tests/integration). */
class HarnessChannelTest {

    /** What the stand-in harness received: method, path with query, body. */
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private volatile int status = 200;
    private volatile String control = "";
    /** The stand-in answers a post of rows only once this opens (a klinkctl that is slow to answer). */
    private volatile java.util.concurrent.CountDownLatch rowsAnswered = new java.util.concurrent.CountDownLatch(0);
    private HttpServer harness;
    private HarnessChannel channel;

    @BeforeEach
    void listen() throws IOException {
        harness = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        harness.createContext("/", this::answer);
        harness.start();
        channel = new HarnessChannel(URI.create("http://127.0.0.1:" + harness.getAddress().getPort()), "stack-1",
                "host:42", "0.1.0");
    }

    @AfterEach
    void stop() {
        harness.stop(0);
        TaskGate.reset();
    }

    private void answer(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body);
        if (exchange.getRequestURI().getPath().equals("/rows")) {
            try {
                rowsAnswered.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] reply = (exchange.getRequestURI().getPath().equals("/control") && status == 200 ? control
                : status == 200 ? "" : "not this stack's run").getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, reply.length == 0 ? -1 : reply.length);
        exchange.getResponseBody().write(reply);
        exchange.close();
    }

    @Test
    void fetchNamesTheStackAndTheAgentAndReturnsTheControl() throws IOException {
        control = "{\"policy\": \"rr\", \"run\": \"r1\"}";
        assertEquals(control, channel.fetch());
        assertEquals("GET /control?stack=stack-1&agent=host%3A42&version=0.1.0 ", requests.get(0));
    }

    @Test
    void nobodyListeningMeansNoControlAndARefusalIsAnError() throws IOException {
        status = 409;
        IOException refused = assertThrows(IOException.class, channel::fetch);
        assertTrue(refused.getMessage().contains("409: not this stack's run"), refused.getMessage());
        harness.stop(0);
        assertEquals("", channel.fetch());
    }

    @Test
    void rowsWaitForTheFlushAndTheCloseSaysTheRunIsComplete() {
        RunOutput out = channel.output("r1");
        out.append("scheduler.csv", "time,policy", "1,rr");
        out.append("scheduler.csv", "time,policy", "2,rr");
        assertTrue(requests.isEmpty());
        out.flush();
        out.flush(); // nothing new: nothing sent
        out.append("tasks.csv", "task", "q00:src#0");
        out.close();
        assertEquals(List.of(
                "POST /rows?stack=stack-1&agent=host%3A42&version=0.1.0&run=r1&file=scheduler.csv time,policy\n1,rr\n2,rr\n",
                "POST /rows?stack=stack-1&agent=host%3A42&version=0.1.0&run=r1&file=tasks.csv task\nq00:src#0\n",
                "POST /done?stack=stack-1&agent=host%3A42&version=0.1.0&run=r1 "), requests);
    }

    @Test
    void aSlowKlinkctlHoldsUpThePostNotTheRowsAppendedMeanwhileAndTheEndComesAfterEveryRow() throws Exception {
        RunOutput out = channel.output("r1");
        out.append("scheduler.csv", "time", "1");
        rowsAnswered = new java.util.concurrent.CountDownLatch(1);
        Thread poster = new Thread(out::flush);
        poster.start();
        while (requests.isEmpty()) {
            Thread.sleep(5);
        }
        long started = System.nanoTime();
        out.append("scheduler.csv", "time", "2"); // the scheduler thread's next cycle, while the post waits
        assertTrue(System.nanoTime() - started < 100_000_000L, "append waited for the post");
        Thread ender = new Thread(out::close);
        ender.start();
        Thread.sleep(100);
        assertEquals(1, requests.size(), "the run's end waits for the post before it");
        rowsAnswered.countDown();
        poster.join(5000);
        ender.join(5000);
        assertEquals(3, requests.size(), requests.toString());
        assertTrue(requests.get(1).endsWith("file=scheduler.csv time\n2\n"), requests.get(1));
        assertTrue(requests.get(2).startsWith("POST /done?"), requests.get(2));
    }

    @Test
    void afterARefusedPostTheRunsRowsAreDropped() {
        RunOutput out = channel.output("r1");
        status = 409;
        out.append("scheduler.csv", "time", "1");
        out.flush();
        status = 200;
        out.append("scheduler.csv", "time", "2");
        out.close();
        assertEquals(1, requests.size(), requests.toString());
    }

    @Test
    void theHarnessThreadFollowsTheHarnessAndSendsTheRunsRowsWhenItEnds() {
        TaskHandle task = new TaskHandle(new TaskInfo("t0", "q00", "q00/window", 0, -1, false, true, false,
                List.of()), Thread.currentThread(), new FakeProbe());
        Scheduler scheduler = new Scheduler(() -> List.of(task), t -> 0L, 1, run -> channel.output(run.run()));
        HarnessThread thread = new HarnessThread(channel, scheduler);
        control = "{\"policy\": \"rr\", \"params\": {\"r\": \"80\"}, \"run\": \"r1\"}";
        thread.poll();
        assertTrue(scheduler.active());
        assertEquals(80, scheduler.cycleMs());
        scheduler.cycle(5);

        control = "{\"policy\": \"rr\", \"params\": ";
        thread.poll();
        assertFalse(scheduler.active(), "a malformed control means default");
        assertFalse(task.isPauseRequested(), "everything resumed");
        assertTrue(requests.stream().anyMatch(r -> r.startsWith("POST /rows?") && r.contains("file=scheduler.csv")));
        assertTrue(requests.stream().anyMatch(r -> r.startsWith("POST /rows?") && r.contains("file=tasks.csv")));
        assertTrue(requests.get(requests.size() - 1).startsWith("POST /done?"), requests.toString());

        control = "{\"policy\": \"default\", \"run\": \"r2\"}";
        thread.poll();
        harness.stop(0);
        thread.poll();
        assertFalse(scheduler.active(), "the harness gone: plain Flink");
        assertEquals(Map.of(), scheduler.control().params());
    }
}
