package io.reactivecollectives.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.WebsocketClientSpec;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A small Chrome DevTools Protocol client over one WebSocket (Reactor Netty): commands go out with
 * an id and their replies complete the matching future; events go to listeners. The WebSocket's
 * handlers run on a Netty event loop and only parse and complete futures there; whoever waits does
 * so on its own thread ({@link #call}, {@link #await}), with a timeout.
 */
final class DevTools implements AutoCloseable {

    /** A screenshot comes back as one message of base64 text: a few MB. */
    private static final int MAX_MESSAGE = 64 << 20;

    private final ObjectMapper json = new ObjectMapper();
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final Sinks.Many<String> outbound = Sinks.many().unicast().onBackpressureBuffer();
    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    private final Duration timeout;
    private final URI uri;
    private volatile Throwable ended;
    private Disposable connection;

    private record Pending(String method, CompletableFuture<JsonNode> reply) {
    }

    private record Listener(String method, String sessionId, Consumer<JsonNode> action) {
    }

    private DevTools(URI uri, Duration timeout) {
        this.uri = uri;
        this.timeout = timeout;
    }

    /**
     * Opens the WebSocket and waits (on the calling thread) until it is open.
     *
     * @param uri     the browser's (or a target's) debugger URL, {@code ws://127.0.0.1:port/devtools/...}
     * @param timeout the limit of this and of every later {@link #call}
     * @return the open client
     */
    static DevTools connect(URI uri, Duration timeout) {
        DevTools devTools = new DevTools(uri, timeout);
        devTools.connection = HttpClient.create()
                .websocket(WebsocketClientSpec.builder().maxFramePayloadLength(MAX_MESSAGE).build())
                .uri(uri.toString())
                .handle((in, out) -> {
                    devTools.opened.complete(null);
                    Mono<Void> reads = in.aggregateFrames(MAX_MESSAGE).receive().asString()
                            .doOnNext(devTools::onMessage)
                            .then()
                            .doFinally(signal -> devTools.end(new IOException("the DevTools connection closed")));
                    Mono<Void> writes = out.sendString(devTools.outbound.asFlux()).then();
                    return Mono.when(reads, writes);
                })
                .subscribe(null,
                        error -> devTools.end(error),
                        () -> devTools.end(new IOException("the DevTools connection closed")));
        try {
            devTools.await(devTools.opened, "the DevTools WebSocket " + uri + " to open");
        } catch (RuntimeException e) {
            devTools.close();
            throw e;
        }
        return devTools;
    }

    /**
     * A new, empty parameters object for {@link #call}.
     *
     * @return an empty JSON object
     */
    ObjectNode params() {
        return json.createObjectNode();
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @param method    the CDP method, e.g. {@code Runtime.evaluate}
     * @param params    its parameters, or {@code null}
     * @param sessionId the target session (flat mode), or {@code null} for the browser
     * @return the reply's {@code result}
     * @throws IllegalStateException on an error reply, a closed connection or the timeout
     */
    JsonNode call(String method, ObjectNode params, String sessionId) {
        return await(send(method, params, sessionId), "the reply to " + method);
    }

    /**
     * Sends a command without waiting.
     *
     * @param method    the CDP method
     * @param params    its parameters, or {@code null}
     * @param sessionId the target session, or {@code null} for the browser
     * @return completes with the reply's {@code result}, or with the error
     */
    CompletableFuture<JsonNode> send(String method, ObjectNode params, String sessionId) {
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        Throwable alreadyEnded = ended;
        if (alreadyEnded != null) {
            reply.completeExceptionally(new IllegalStateException(method + ": " + alreadyEnded.getMessage(), alreadyEnded));
            return reply;
        }
        long id = ids.incrementAndGet();
        ObjectNode message = json.createObjectNode().put("id", id).put("method", method);
        message.set("params", params == null ? params() : params);
        if (sessionId != null) {
            message.put("sessionId", sessionId);
        }
        pending.put(id, new Pending(method, reply));
        Sinks.EmitResult result;
        synchronized (outbound) {
            result = outbound.tryEmitNext(message.toString());
        }
        if (result.isFailure()) {
            pending.remove(id);
            reply.completeExceptionally(new IllegalStateException(method + ": could not be sent (" + result + ")"));
        }
        return reply;
    }

    /**
     * Calls {@code action} (on a Netty thread: it must not block) with every event of that method.
     *
     * @param method    the event, e.g. {@code Runtime.exceptionThrown}
     * @param sessionId only the events of this session, or {@code null} for all
     * @param action    receives the event's {@code params}
     */
    void on(String method, String sessionId, Consumer<JsonNode> action) {
        listeners.add(new Listener(method, sessionId, action));
    }

    /**
     * The next event of a method, for a wait that starts before what causes it.
     *
     * @param method    the event, e.g. {@code Page.loadEventFired}
     * @param sessionId only this session's, or {@code null}
     * @return completes with the event's {@code params}, or with an error when the connection ends
     */
    CompletableFuture<JsonNode> next(String method, String sessionId) {
        CompletableFuture<JsonNode> event = new CompletableFuture<>();
        Listener listener = new Listener(method, sessionId, event::complete);
        listeners.add(listener);
        event.whenComplete((params, error) -> listeners.remove(listener));
        Throwable alreadyEnded = ended;
        if (alreadyEnded != null) {
            event.completeExceptionally(alreadyEnded);
        }
        return event;
    }

    /**
     * Waits on the calling thread, never on an event loop, for at most this client's timeout.
     *
     * @param future what to wait for
     * @param what   what it is, for the error
     * @param <T>    its value
     * @return its value
     * @throws IllegalStateException when it fails or the time is up
     */
    <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms waiting for " + what
                    + " (DevTools " + uri + ")", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("failed waiting for " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + what, e);
        }
    }

    private void onMessage(String text) {
        JsonNode message;
        try {
            message = json.readTree(text);
        } catch (IOException e) {
            return;   // not CDP: nothing waits for it
        }
        if (message.has("id")) {
            Pending waiting = pending.remove(message.get("id").asLong());
            if (waiting == null) {
                return;
            }
            JsonNode error = message.get("error");
            if (error != null) {
                waiting.reply().completeExceptionally(new IllegalStateException(waiting.method() + " failed: "
                        + error.path("message").asText() + " " + error.path("data").asText("")));
            } else {
                waiting.reply().complete(message.path("result"));
            }
            return;
        }
        String method = message.path("method").asText();
        String sessionId = message.path("sessionId").asText(null);
        for (Listener listener : listeners) {
            if (listener.method().equals(method)
                    && (listener.sessionId() == null || listener.sessionId().equals(sessionId))) {
                listener.action().accept(message.path("params"));
            }
        }
    }

    private void end(Throwable why) {
        if (ended == null) {
            ended = why;
        }
        opened.completeExceptionally(why);
        for (Long id : List.copyOf(pending.keySet())) {
            Pending waiting = pending.remove(id);
            if (waiting != null) {
                waiting.reply().completeExceptionally(
                        new IllegalStateException(waiting.method() + ": " + why.getMessage(), why));
            }
        }
        synchronized (outbound) {
            outbound.tryEmitComplete();
        }
    }

    /** Ends the WebSocket; waiting calls fail. */
    @Override
    public void close() {
        end(new IOException("the DevTools client was closed"));
        if (connection != null) {
            connection.dispose();
        }
    }
}
