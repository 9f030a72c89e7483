package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.FingerprintCheck;
import io.reactivecollectives.transport.decision.Plan;
import io.reactivecollectives.transport.failure.AbortProtocol;
import io.reactivecollectives.transport.group.CollectiveWatchdog;
import io.reactivecollectives.transport.group.CollectiveBox;
import io.reactivecollectives.transport.group.Disagreement;
import io.reactivecollectives.transport.group.Mailbox;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.function.Function;

/**
 * The one lifecycle every collective goes through: validate and decide the algorithm (once) ->
 * sequence number -> fingerprint -> observe (flight recorder, meters, the algorithm recorded) ->
 * watchdog -> run what was decided -> map errors -> tell the peers -> close.
 *
 * <p>A call whose arguments are refused still takes its sequence number and tells every peer that
 * this collective failed here (an ABORT of kind MISMATCH), so the peers' copies fail with the
 * reason instead of waiting, and the group's next collective pairs up again on every rank. A call
 * the group refuses (closed, aborted, a peer dead) takes no number: the group is unusable anyway.
 */
public final class CollectiveRunner {

    private static final long[][] NO_SHAPES = new long[0][];

    private final GroupRuntime runtime;
    private final AbortProtocol aborts;

    public CollectiveRunner(GroupRuntime runtime, AbortProtocol aborts) {
        this.runtime = runtime;
        this.aborts = aborts;
    }

    public GroupRuntime runtime() {
        return runtime;
    }

    /** Runs {@code call} on subscription (cold). */
    public <P extends Plan, T> Mono<T> run(CollectiveCall<P, T> call) {
        String name = call.name();
        return runtime.settings().deliver(Mono.defer(() -> {
            CollectiveOptions opts = call.options();
            if (opts == null) {
                throw new IllegalArgumentException(name + ": options is null");
            }
            P plan;
            IllegalArgumentException invalid = null;
            try {
                plan = call.decide().get();
            } catch (IllegalArgumentException e) {
                plan = null;
                invalid = e;
            }
            P decided = plan;
            CollectiveException refused = runtime.refusal(name);
            if (refused != null) {
                return invalid != null ? Mono.error(invalid) : Mono.error(refused);
            }
            Mailbox mailbox = runtime.mailbox();
            if (invalid != null) {
                return Mono.error(refuseHere(mailbox.open(name), invalid));
            }
            CollectiveFingerprint fp = call.describe().apply(mailbox.nextSequence());
            // with the DETAIL check on, its exchange of whole fingerprints reports disagreements in full instead
            boolean detail = runtime.settings().checkCollectives();
            long start = System.nanoTime();   // the one clock reading at the start: box, recorder, meters, deadline
            Duration timeout = opts.timeout() != null ? opts.timeout() : runtime.settings().timeout();
            CollectiveBox box = mailbox.open(name, detail ? Agreement.NONE
                    : Agreement.word(fp.op(), fp.dtype(), fp.reduceOp(), fp.root()), detail ? 0 : Agreement.count(fp), start,
                    timeout.toNanos());
            Object owner = box;
            String inUse = runtime.claims().claim(call.tensors(), owner, () -> name + "[seq=" + box.sequence() + "]");
            if (inUse != null) {
                return Mono.error(refuseHere(box, new IllegalArgumentException(name + ": " + inUse)));
            }
            CollectiveException pending = mailbox.pendingAbort(box);
            if (pending != null) {
                runtime.claims().release(owner);
                mailbox.close(box);
                return Mono.error(pending);
            }
            CollectiveChannel channel = new CollectiveChannel(runtime, box, call.op(), name, 0);
            long[][] shapes = fp.shapes().toArray(NO_SHAPES);   // NO_SHAPES itself when there are none
            return runtime.observer().observe(box.sequence(), fp.op(), fp.dtype(), shapes, shapes,
                    decided.recordedName(), start, entry -> {
                channel.entry(entry);
                Mono<T> work = Mono.defer(() -> {
                    agreeWithEarlyFrames(box);
                    return call.body().apply(channel, decided);
                });
                if (runtime.settings().checkCollectives()) {
                    work = FingerprintCheck.verify(channel, fp).then(work);
                }
                return new CollectiveLifecycle<>(work, runtime.watchdog(), timeout, start, new CollectiveLifecycle.Ending() {
                    @Override
                    public Throwable mapError(Throwable e) {
                        Throwable mapped = e instanceof CollectiveException ? e : new CollectiveException(name,
                                runtime.rank(), box.sequence(), CollectiveException.NO_PEER, e.toString(), e);
                        tellPeers(box, mapped);
                        runtime.settings().onCollectiveError().accept(mapped);
                        return mapped;
                    }

                    @Override
                    public Throwable timeoutError() {
                        return CollectiveRunner.this.timeoutError(channel, timeout);
                    }

                    // the tensors are free again before the result goes downstream (a .then() on the same
                    // tensor must find them free)
                    @Override
                    public void released() {
                        runtime.claims().release(owner);
                        mailbox.ended(box);
                    }

                    @Override
                    public void cancelled() {
                        tellPeers(box, null);
                    }

                    @Override
                    public void finished() {
                        mailbox.close(box);
                    }
                });
            });
        }));
    }

    /**
     * A stream of chunks reduced as they come (every chunk an all-reduce under the stream's one
     * sequence number, tagged with the chunk's index); each chunk has the group's timeout.
     */
    public Flux<Chunk> runStream(String name, Runnable validate, Function<CollectiveChannel, Flux<Chunk>> body) {
        return Flux.defer(() -> {
            IllegalArgumentException invalid = check(validate);
            CollectiveException refused = runtime.refusal(name);
            if (refused != null) {
                return Flux.error(invalid != null ? invalid : refused);
            }
            CollectiveBox box = runtime.mailbox().open(name);
            if (invalid != null) {
                return Flux.error(refuseHere(box, invalid));
            }
            CollectiveChannel channel = new CollectiveChannel(runtime, box, OpType.ALLREDUCE, name, 0);
            return runtime.observer().observeMany(box.sequence(), OpType.ALLREDUCE, null, null, null, null,
                    entry -> {
                        channel.entry(entry);
                        return body.apply(channel)
                                .onErrorMap(e -> !(e instanceof CollectiveException) && !(e instanceof IllegalArgumentException),
                                        e -> new CollectiveException(name, runtime.rank(), box.sequence(),
                                                CollectiveException.NO_PEER, e.toString(), e))
                                .doOnError(e -> tellPeers(box, e))
                                .doOnCancel(() -> tellPeers(box, null))
                                .doFinally(s -> runtime.mailbox().close(box));
                    });
        });
    }

    /**
     * {@code work} with the group's timeout, for one piece of a stream, delivered where the settings
     * say (per piece, so the stream holds no more pieces than its prefetch).
     */
    public <T> Mono<T> withTimeout(CollectiveChannel channel, Mono<T> work) {
        Duration timeout = runtime.settings().timeout();
        return runtime.settings().deliver(Mono.defer(() -> {
            CollectiveWatchdog.Alarm alarm = runtime.watchdog().arm(timeout);
            return work.timeout(alarm.fired(), Mono.defer(() -> Mono.error(timeoutError(channel, timeout))))
                    .doFinally(x -> alarm.disarm());
        }));
    }

    /**
     * Fails with a {@link CollectiveMismatchException} when a frame that came before the collective
     * opened here disagrees with it; else acknowledges the early frames that asked for a receipt.
     */
    private void agreeWithEarlyFrames(CollectiveBox box) {
        Disagreement d = runtime.mailbox().disagreement(box);
        if (d != null) {
            throw Agreement.mismatch(box, runtime.rank(), d.source(), d.word(), d.count());
        }
        for (int peer : runtime.mailbox().takeOwedAcks(box)) {
            aborts.acknowledge(peer, box.sequence());
        }
    }

    private static IllegalArgumentException check(Runnable validate) {
        try {
            validate.run();
            return null;
        } catch (IllegalArgumentException e) {
            return e;
        }
    }

    /** The arguments were refused here: the peers' copies of this collective fail with the reason. */
    private IllegalArgumentException refuseHere(CollectiveBox box, IllegalArgumentException invalid) {
        aborts.tellPeers(box.sequence(), invalid);
        runtime.mailbox().close(box);
        return invalid;
    }

    private void tellPeers(CollectiveBox box, Throwable cause) {
        if (AbortProtocol.isRemote(cause) || FingerprintCheck.seenByAll(cause) || runtime.isShut()) {
            return;
        }
        aborts.tellPeers(box.sequence(), cause);
    }

    /** {@code ; flight recorder dump: <file>} where the timeout's automatic dump goes, or nothing when dumps are off. */
    private String dumpNote() {
        io.reactivecollectives.core.observe.FlightRecorder r = runtime.observer().recorder();
        return r.config().dumpOnFailure() ? "; flight recorder dump: " + r.dumpFile() : "";
    }

    private CollectiveTimeoutException timeoutError(CollectiveChannel channel, Duration timeout) {
        CollectiveBox box = channel.box();
        int peer = box.waitingOn();
        String what = box.waitingWhat();
        CollectiveTimeoutException e = new CollectiveTimeoutException(channel.op(), runtime.rank(), box.sequence(), peer,
                timeout, "timed out after " + timeout.toMillis() + " ms" + (peer >= 0 ? " waiting for rank " + peer
                + (what != null ? " (" + what + ")" : "") : "") + "; " + runtime.peerFailures().progress() + dumpNote());
        runtime.mailbox().fail(box, e);
        return e;
    }
}
