package io.klink.workloads.rides;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** klinkctl's control channel as the combiner sees it: records every request, answers with {@code answer}. */
final class FakeKlinkctl implements AutoCloseable {

    record Request(String method, String path, String query, String body) {}

    record Answer(int status, String body) {}

    final List<Request> requests = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    FakeKlinkctl(Function<Request, Answer> answer) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestURI().getRawQuery(),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            requests.add(request);
            Answer reply = answer.apply(request);
            byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    CombinerChannel.Address address() {
        return new CombinerChannel.Address(url(), "stack1", "run-1");
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
