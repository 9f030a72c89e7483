package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The requests of one server connection, answered on its event loop against the server's shared
 * {@link KeyValueWaiters}: a waiting request ({@code GET}, {@code WAIT}, {@code MULTI_GET}) becomes
 * a {@link ServerWaiter} with a timer on this event loop, answered by the write that completes it
 * (on this loop, whichever connection wrote), by its timer, dropped on {@code CANCEL} and with
 * every other waiter of the connection when it closes ({@link #dropWaits()}).
 */
final class StoreRequests {

    /** The longest wait a request may ask for (7 days); longer ones are clamped. */
    static final long MAX_WAIT_MS = Duration.ofDays(7).toMillis();
    /** Pending waits one connection may hold; more is a protocol error. */
    static final int MAX_PENDING_PER_CONNECTION = 65_536;

    /** A request of this connection waiting for keys. */
    static final class ServerWaiter extends KeyValueWaiters.Waiter {
        final StoreRequests owner;
        final int id;
        ScheduledFuture<?> timer;

        ServerWaiter(StoreRequests owner, int id, String op, List<String> keys) {
            super(op, keys);
            this.owner = owner;
            this.id = id;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }

    private final Channel channel;
    private final KeyValueWaiters<ServerWaiter> kv;
    /** Event-loop only. */
    private final Map<Integer, ServerWaiter> waits = new HashMap<>();
    /** The replicated log under this server's state, or null (the state is this process's alone). */
    private final StoreReplication replication;
    /** With a replication: done when this connection's previous request was answered (event-loop only). */
    private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);

    StoreRequests(Channel channel, KeyValueWaiters<ServerWaiter> kv, StoreReplication replication) {
        this.channel = channel;
        this.kv = kv;
        this.replication = replication;
    }

    void write(ByteBuf frame) {
        channel.writeAndFlush(frame, channel.voidPromise());
    }

    /**
     * Answers one request of a replicated store, in this connection's order: a write ({@code command},
     * its frame body) once the log committed it, with the response the leader's state gave; anything
     * else (a read, a wait, a cancel) once this replica applied every write committed before it
     * ({@link StoreReplication#readBarrier()}). A log that cannot reach a majority fails the request
     * ({@code E_CLOSED}) and nothing else; a request that breaks the protocol goes to {@code protocolError}.
     */
    void dispatchReplicated(StoreFrameCodec.Request r, byte[] command, Consumer<StoreProtocolException> protocolError) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        // the replication is asked from the library's bounded scheduler, not from this event loop: handing
        // a call to its own threads may wait on their executor's lock (a replica closing under load did)
        previous.whenComplete((x, y) -> offEventLoop(r, done, () -> {
            CompletableFuture<?> step = command != null
                    ? replication.commit(command).thenAccept(response -> onEventLoop(() -> {
                        if (response.length > 0) {   // none for a set without reply
                            write(Unpooled.wrappedBuffer(response));
                        }
                    }))
                    : replication.readBarrier().thenAccept(v -> onEventLoop(() -> {
                        try {
                            dispatchAnswering(r);
                        } catch (StoreProtocolException e) {
                            protocolError.accept(e);
                        }
                    }));
            step.whenComplete((v, e) -> {
                if (e != null) {
                    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    answerClosed(r, "the store's replicas did not answer: "
                            + (cause.getMessage() != null ? cause.getMessage() : cause.toString()));
                }
                done.complete(null);
            });
        }));
        previous = done;
    }

    /** Runs {@code task} on the library's bounded scheduler; if it takes no more work, answers {@code r} closed. */
    private void offEventLoop(StoreFrameCodec.Request r, CompletableFuture<Void> done, Runnable task) {
        try {
            BlockingScheduler.get().schedule(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            answerClosed(r, "the store server is overloaded: " + e.getMessage());
            done.complete(null);
        }
    }

    private void answerClosed(StoreFrameCodec.Request r, String why) {
        onEventLoop(() -> write(StoreResponseCodec.error(channel.alloc(), r.id(), StoreFrameCodec.E_CLOSED,
                StoreServerSession.opName(r), why, List.of(), 0)));
    }

    /** {@link #dispatch}, with its argument and state errors answered ({@link #refusal}); protocol errors are thrown. */
    void dispatchAnswering(StoreFrameCodec.Request r) {
        try {
            dispatch(r);
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            write(refusal(channel.alloc(), r, e));
        }
    }

    /** The answer to {@code r} refused by the state: a bad argument ({@code E_BAD_REQUEST}) or a closed store ({@code E_CLOSED}). */
    static ByteBuf refusal(ByteBufAllocator a, StoreFrameCodec.Request r, RuntimeException e) {
        return StoreResponseCodec.error(a, r.id(), e instanceof IllegalStateException ? StoreFrameCodec.E_CLOSED
                : StoreFrameCodec.E_BAD_REQUEST, StoreServerSession.opName(r), String.valueOf(e.getMessage()), List.of(), 0);
    }

    /** {@return whether writes go through a replicated log} */
    boolean replicated() {
        return replication != null;
    }

    /** {@return whether {@code r} changes the store (on a replicated store: goes through the log)} */
    static boolean writes(StoreFrameCodec.Request r) {
        return r instanceof StoreFrameCodec.Set || r instanceof StoreFrameCodec.Add
                || r instanceof StoreFrameCodec.CompareSet || r instanceof StoreFrameCodec.Delete
                || r instanceof StoreFrameCodec.MultiSet || r instanceof StoreFrameCodec.Append;
    }

    /**
     * Applies write {@code r} ({@link #writes}) to {@code kv}: its response, or null for a set without
     * reply; the waiters it completes go to {@code fired}. Argument and state errors propagate.
     */
    static ByteBuf applyWrite(ByteBufAllocator a, KeyValueWaiters<ServerWaiter> kv, StoreFrameCodec.Request r,
                              List<KeyValueWaiters.Fired<ServerWaiter>> fired) {
        int id = r.id();
        if (r instanceof StoreFrameCodec.Set q) {
            kv.set(q.key(), q.value(), fired);
            return q.reply() ? StoreResponseCodec.ok(a, id) : null;
        } else if (r instanceof StoreFrameCodec.Add q) {
            return StoreResponseCodec.longValue(a, id, kv.add(q.key(), q.delta(), fired));
        } else if (r instanceof StoreFrameCodec.CompareSet q) {
            return StoreResponseCodec.value(a, id, kv.compareSet(q.key(), q.expected(), q.desired(), fired));
        } else if (r instanceof StoreFrameCodec.Delete q) {
            return StoreResponseCodec.boolValue(a, id, kv.delete(q.key()));
        } else if (r instanceof StoreFrameCodec.MultiSet q) {
            kv.multiSet(q.entries(), fired);
            return StoreResponseCodec.ok(a, id);
        } else if (r instanceof StoreFrameCodec.Append q) {
            return StoreResponseCodec.longValue(a, id, kv.append(q.key(), q.value(), fired));
        }
        throw new IllegalArgumentException("not a write: " + StoreServerSession.opName(r));
    }

    /** Answers (or registers) one request; argument and state errors propagate to the caller. */
    void dispatch(StoreFrameCodec.Request r) {
        int id = r.id();
        ByteBufAllocator a = channel.alloc();
        List<KeyValueWaiters.Fired<ServerWaiter>> fired = new ArrayList<>(0);
        if (writes(r)) {
            ByteBuf response = applyWrite(a, kv, r, fired);
            if (response != null) {
                write(response);
            }
        } else if (r instanceof StoreFrameCodec.Get q) {
            await(id, "get", List.of(q.key()), q.timeoutMs());
        } else if (r instanceof StoreFrameCodec.Wait q) {
            await(id, "await", q.keys(), q.timeoutMs());
        } else if (r instanceof StoreFrameCodec.Check q) {
            write(StoreResponseCodec.boolValue(a, id, kv.check(q.keys())));
        } else if (r instanceof StoreFrameCodec.NumKeys) {
            write(StoreResponseCodec.longValue(a, id, kv.numKeys()));
        } else if (r instanceof StoreFrameCodec.MultiGet q) {
            await(id, "multiGet", q.keys(), q.timeoutMs());
        } else if (r instanceof StoreFrameCodec.Cancel) {
            ServerWaiter w = waits.remove(id);
            if (w != null && kv.remove(w) != null) {
                w.cancelTimer();
            }
        }
        fire(fired);
    }

    /**
     * A waiting request: answered now if every key exists, else registered with a timer on this event
     * loop; with a zero timeout it does not wait, failing at once if a key is missing.
     */
    private void await(int id, String op, List<String> keys, long timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException(op + ": timeout must not be negative, was " + timeoutMs + " ms");
        }
        if (waits.containsKey(id)) {
            throw new StoreProtocolException("request id " + id + " is already waiting");
        }
        if (waits.size() >= MAX_PENDING_PER_CONNECTION) {
            throw new StoreProtocolException("more than " + MAX_PENDING_PER_CONNECTION + " pending waits");
        }
        ServerWaiter w = new ServerWaiter(this, id, op, keys);
        List<byte[]> now = kv.awaitOrGet(w);
        if (now != null) {
            write(answer(w, now));
            return;
        }
        waits.put(id, w);
        if (timeoutMs == 0) { // no wait: a check now
            onTimeout(w, 0);
            return;
        }
        long ms = Math.min(timeoutMs, MAX_WAIT_MS);
        w.timer = channel.eventLoop().schedule(() -> onTimeout(w, ms), ms, TimeUnit.MILLISECONDS);
    }

    private ByteBuf answer(ServerWaiter w, List<byte[]> values) {
        ByteBufAllocator a = channel.alloc();
        return switch (w.op()) {
            case "get" -> StoreResponseCodec.value(a, w.id, values.get(0));
            case "await" -> StoreResponseCodec.ok(a, w.id);
            default -> StoreResponseCodec.values(a, w.id, values);
        };
    }

    private void onTimeout(ServerWaiter w, long ms) {
        List<String> missing = kv.remove(w);
        if (missing == null) {
            return; // fired meanwhile: its answer is on the way
        }
        waits.remove(w.id);
        StoreTimeoutException te = new StoreTimeoutException(w.op(), missing, Duration.ofMillis(ms));
        write(StoreResponseCodec.error(channel.alloc(), w.id, StoreFrameCodec.E_TIMEOUT, w.op(), te.getMessage(),
                te.missingKeys(), ms));
    }

    /** Answers waiters completed by a write, each on its own connection's event loop. */
    static void fire(List<KeyValueWaiters.Fired<ServerWaiter>> fired) {
        for (KeyValueWaiters.Fired<ServerWaiter> f : fired) {
            ServerWaiter w = f.waiter();
            StoreRequests s = w.owner;
            s.onEventLoop(() -> {
                s.waits.remove(w.id);
                w.cancelTimer();
                if (s.channel.isActive()) {
                    s.write(s.answer(w, f.values()));
                }
            });
        }
    }

    /** Fails a waiter dropped because the server closed. */
    static void closed(ServerWaiter w) {
        StoreRequests s = w.owner;
        s.onEventLoop(() -> {
            s.waits.remove(w.id);
            w.cancelTimer();
            if (s.channel.isActive()) {
                s.write(StoreResponseCodec.error(s.channel.alloc(), w.id, StoreFrameCodec.E_CLOSED, w.op(),
                        w.op() + ": store closed while waiting for " + w.keys(), List.of(), 0));
            }
        });
    }

    /** Runs {@code task} on this connection's event loop (now when already there). */
    void onEventLoop(Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
        } else {
            try {
                channel.eventLoop().execute(task);
            } catch (java.util.concurrent.RejectedExecutionException shutDown) {
                // the event loop is gone with the server: nobody is left to answer
            }
        }
    }

    /** Drops every waiter of this connection (it closed). */
    void dropWaits() {
        if (waits.isEmpty()) {
            return;
        }
        List<ServerWaiter> all = new ArrayList<>(waits.values());
        waits.clear();
        for (ServerWaiter w : all) {
            kv.remove(w);
            w.cancelTimer();
        }
    }
}
