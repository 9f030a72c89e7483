package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.transport.rendezvous.TorchStoreConnection.Reply;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The waiting calls of a {@link TorchTcpStore}: each waits with torch's WAIT on a connection of its
 * own (closed when the wait ends, times out or is cancelled; over 2.x a cancelled wait first sends
 * CANCEL_WAIT), while a CHECK every {@link TorchTcpStore#POLL_INTERVAL} on the main connection
 * catches keys whose creation wakes no waiter (torch 1.x's {@code compare_set}). The store's close
 * closes every wait connection still open.
 */
final class TorchStoreWaits {

    private final Mono<TorchStoreConnection> main;
    private final Supplier<Mono<TorchStoreConnection>> open;
    private final BooleanSupplier closed;
    private final Set<TorchStoreConnection> waits = ConcurrentHashMap.newKeySet();

    /**
     * @param main   the store's main connection (cached), for the polling CHECKs
     * @param open   opens a new connection to the server, for each WAIT
     * @param closed whether the store was closed (a wait connection opened after that is closed at once)
     */
    TorchStoreWaits(Mono<TorchStoreConnection> main, Supplier<Mono<TorchStoreConnection>> open,
                    BooleanSupplier closed) {
        this.main = main;
        this.open = open;
        this.closed = closed;
    }

    /**
     * torch's WAIT on a connection of its own, closed when the wait ends (or is cancelled); with a
     * CHECK every {@link TorchTcpStore#POLL_INTERVAL} on the main connection, as torch 1.x wakes no
     * waiter when {@code compare_set} creates a key. Fails with a {@code TimeoutException} after
     * {@code timeout}.
     */
    Mono<Void> waitFor(String op, List<String> wireKeys, Duration timeout) {
        return main.flatMap(m -> {
            // timers on the connection's event loop: cancelling a pending task of Schedulers.parallel()
            // takes its queue's lock, which BlockHound caught parking an event loop; one delay at a
            // time, so a check still out when the next is due is never an interval overflow
            Scheduler loop = m.scheduler();
            Mono<Boolean> poll = Mono.delay(TorchTcpStore.POLL_INTERVAL, loop)
                    .then(main.flatMap(c -> TorchTcpStore.check(c, op, wireKeys)))
                    .repeat()
                    .filter(ready -> ready)
                    .next();
            return Mono.firstWithSignal(waitOn(op, wireKeys).then(), poll.then())
                    .timeout(timeout, loop);
        });
    }

    private Mono<Object> waitOn(String op, List<String> wireKeys) {
        Mono<TorchStoreConnection> connection = open.get()
                .doOnNext(c -> {
                    waits.add(c);
                    if (closed.getAsBoolean()) {
                        c.close();
                    }
                });
        return Mono.usingWhen(connection,
                        c -> c.call(op, TorchQuery.WAIT, Reply.BYTE, b -> TorchTcpStore.writeKeys(b, wireKeys)),
                        c -> closeWait(c),
                        (c, e) -> cancelWait(c),
                        c -> cancelWait(c));
    }

    private Mono<Void> closeWait(TorchStoreConnection c) {
        return Mono.fromRunnable(() -> {
            waits.remove(c);
            c.close();
        });
    }

    /** Over 2.x, torch's CANCEL_WAIT (its WAIT_CANCELED reply is not awaited) before the close. */
    private Mono<Void> cancelWait(TorchStoreConnection c) {
        if (!TorchQuery.CANCEL_WAIT.in(c.protocol()) || !c.isActive()) {
            return closeWait(c);
        }
        return c.call("cancelWait", TorchQuery.CANCEL_WAIT, Reply.NONE, b -> { })
                .timeout(Duration.ofSeconds(1), c.scheduler())
                .onErrorResume(e -> Mono.empty())
                .then(closeWait(c));
    }

    /** Closes every wait connection still open (the store is closing). */
    void closeAll() {
        for (TorchStoreConnection w : waits) {
            w.close();
        }
        waits.clear();
    }
}
