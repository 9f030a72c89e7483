package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.Tensor;
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
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The one lifecycle every collective goes through: validate and decide the algorithm (once) ->
 * sequence number -> fingerprint -> observe (flight recorder, meters, the algorithm recorded) ->
 * watchdog -> run what was decided -> map errors -> tell the peers -> close.
 *
 * <p>A call whose arguments are refused still takes its sequence number and tells every peer that
 * this collective failed here (an ABORT of kind MISMATCH), so the peers' copies fail with the
 * reason instead of waiting, and the group's next collective pairs up again on every rank. A call
 * the group refuses (closed, aborted, a peer dead) takes no number: the group is unusable anyway.
 *
 * <p>What only the runner reads is nested here, so that a call's walk stays in this file: the call
 * an op hands it ({@link CollectiveCall}) and the packing of the agreement a box opens with
 * ({@code agreementWord}, {@code agreementCount}).
 */
public final class CollectiveRunner {

    private static final long[][] NO_SHAPES = new long[0][];

    private final GroupRuntime runtime;
    private final AbortProtocol aborts;
    /** The memory the group's in-flight collectives and receives use ({@link GroupRuntime#claims()}). */
    private final TensorClaims claims;

    public CollectiveRunner(GroupRuntime runtime, AbortProtocol aborts) {
        this.runtime = runtime;
        this.aborts = aborts;
        this.claims = runtime.claims();
    }

    public GroupRuntime runtime() {
        return runtime;
    }

    /** Runs {@code call} on subscription (cold). */
    public <P extends Plan, T> Mono<T> run(CollectiveCall<P, T> call) {
        String name = call.name();
        return runtime.settings().deliver(Mono.defer(() -> {
            CollectiveOptions opts = call.options();
            P plan = null;
            IllegalArgumentException invalid = null;
            if (opts == null) {   // refused as any bad argument is: it takes its number and tells the peers
                invalid = new IllegalArgumentException(name + ": options is null");
            } else {
                try {
                    plan = call.decide().get();
                } catch (IllegalArgumentException e) {
                    invalid = e;
                }
            }
            P decided = plan;
            CollectiveException refused = runtime.refusal(name);
            if (refused != null) {
                return invalid != null ? Mono.error(invalid) : Mono.error(reported(refused));
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
                    : agreementWord(fp) | (long) (decided.agreementCode() & 0x7F) << 33, detail ? 0 : agreementCount(fp), start,
                    timeout.toNanos());
            Object owner = box;
            String inUse = claims.claim(call.tensors(), owner, () -> name + "[seq=" + box.sequence() + "]");
            if (inUse != null) {
                return Mono.error(refuseHere(box, new IllegalArgumentException(name + ": " + inUse)));
            }
            long[][] shapes = fp.shapes().toArray(NO_SHAPES);   // NO_SHAPES itself when there are none
            CollectiveException pending = mailbox.pendingAbort(box);
            if (pending != null) {
                // the peers gave up on it before it started here (this rank came late): recorded as
                // started and failed, and dumped as a failure is, so that every rank leaves a dump
                claims.release(owner);
                mailbox.close(box);
                return runtime.observer().observe(box.sequence(), fp.op(), fp.dtype(), shapes, shapes,
                        decided.recordedName(), start, entry -> Mono.error(pending));
            }
            CollectiveChannel channel = new CollectiveChannel(runtime, box, call.op(), name, 0);
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
                        claims.release(owner);
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
     * A refused collective's error, told to the error handling as a failed collective's is when a
     * peer died (one that died between two collectives still tears the process down in
     * {@code TEAR_DOWN} mode); a group this rank aborted or closed is not a failure to report.
     */
    private CollectiveException reported(CollectiveException refused) {
        if (refused instanceof PeerFailureException) {
            runtime.settings().onCollectiveError().accept(refused);
        }
        return refused;
    }

    /**
     * A stream of chunks reduced as they come (every chunk an all-reduce under the stream's one
     * sequence number, tagged with the chunk's index); each chunk has the group's timeout.
     */
    public Flux<Chunk> runStream(String name, ReduceOp op, Runnable validate, Function<CollectiveChannel, Flux<Chunk>> body) {
        return Flux.defer(() -> {
            IllegalArgumentException invalid = check(validate);
            CollectiveException refused = runtime.refusal(name);
            if (refused != null) {
                return Flux.error(invalid != null ? invalid : reported(refused));
            }
            // the stream's frames carry its op and reduce op, and each its chunk's dtype (checked chunk by chunk)
            long word = invalid != null ? Agreement.NONE : streamWord(op);
            CollectiveBox box = runtime.mailbox().open(name, word, 0, System.nanoTime());
            if (invalid != null) {
                return Flux.error(refuseHere(box, invalid));
            }
            CollectiveException pending = runtime.mailbox().pendingAbort(box);
            if (pending != null) {   // a peer's copy failed before this rank subscribed: fail here too
                runtime.mailbox().close(box);
                return runtime.observer().observeMany(box.sequence(), OpType.ALLREDUCE, null, null, null, null,
                        entry -> Flux.<Chunk>error(pending));
            }
            CollectiveChannel channel = new CollectiveChannel(runtime, box, OpType.ALLREDUCE, name, 0);
            return runtime.observer().observeMany(box.sequence(), OpType.ALLREDUCE, null, null, null, null,
                    entry -> {
                        channel.entry(entry);
                        return Flux.defer(() -> {
                                    agreeWithEarlyFrames(box);
                                    return body.apply(channel);
                                })
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
        Disagreement d = box.earlyDisagreement();
        if (d != null) {
            throw Agreement.mismatch(box, runtime.rank(), d.source(), d.word(), d.count());
        }
        for (int peer : box.takeOwedAcks()) {
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

    /**
     * The agreement word of a collective's fingerprint, as {@link Agreement} reads it back: op,
     * dtype (none: 0), reduce op (none: 0) and root (none: -1), each plus one, in bits 56, 48, 40
     * and 0-31. Never {@link Agreement#NONE}. Packed here, where every collective's box opens, so
     * that a call that agrees never enters {@link Agreement}.
     */
    static long agreementWord(CollectiveFingerprint fp) {
        long w = (long) (fp.op().ordinal() + 1) << 56;
        w |= (long) (fp.dtype() == null ? 0 : fp.dtype().ordinal() + 1) << 48;
        w |= (long) (fp.reduceOp() == null ? 0 : fp.reduceOp().kind().ordinal() + 1) << 40;
        w |= (fp.root() + 1L) & 0xFFFF_FFFFL;
        return w;
    }

    /**
     * A stream's agreement word: the all-reduce, its reduce op and {@link CollectiveBox#STREAM} (no
     * dtype, no root: its frames add their chunk's dtype, see {@link CollectiveChannel#forChunk}).
     */
    static long streamWord(ReduceOp op) {
        return (long) (OpType.ALLREDUCE.ordinal() + 1) << 56 | (long) (op.kind().ordinal() + 1) << 40 | CollectiveBox.STREAM;
    }

    /** The agreement count of a fingerprint: its shapes' elements in all. */
    static long agreementCount(CollectiveFingerprint fp) {
        long n = 0;
        List<long[]> shapes = fp.shapes();
        for (int i = 0; i < shapes.size(); i++) {   // indexed: no iterator per collective
            long[] shape = shapes.get(i);
            long e = 1;
            for (long d : shape) {
                e *= d;
            }
            n += e;
        }
        return n;
    }

    /**
     * One collective as the runner sees it: its type, per-call options, the argument check and the
     * algorithm's choice (run once on subscription, before anything is sent), its fingerprint for a
     * sequence number, and its body over a {@link CollectiveChannel}, which runs what was chosen.
     *
     * @param op       the collective's type (its display name names it in messages)
     * @param options  per-call options (timeout, forced algorithm)
     * @param decide   checks the arguments and chooses the algorithm (its collective's decision in
     *                 {@code transport.decision}); throws {@link IllegalArgumentException} for bad
     *                 arguments or a forced algorithm that does not implement the collective
     * @param describe the fingerprint (op, dtype, shapes, root, reduce op) for a sequence number
     * @param body     the collective's work, given what {@code decide} chose
     * @param tensors  the tensors it reads and writes (no other in-flight collective of the group may
     *                 use their memory)
     */
    public record CollectiveCall<P extends Plan, T>(OpType op, CollectiveOptions options, Supplier<P> decide,
                                                    LongFunction<CollectiveFingerprint> describe,
                                                    BiFunction<CollectiveChannel, P, Mono<T>> body,
                                                    List<Tensor> tensors) {

        public CollectiveCall(OpType op, CollectiveOptions options, Supplier<P> decide,
                              LongFunction<CollectiveFingerprint> describe, BiFunction<CollectiveChannel, P, Mono<T>> body) {
            this(op, options, decide, describe, body, List.of());
        }

        /** This call, using the memory of {@code ts} (tensors or lists of tensors; nulls skipped). */
        public CollectiveCall<P, T> using(Object... ts) {
            List<Tensor> all = new ArrayList<>();
            for (Object o : ts) {
                if (o instanceof Tensor t) {
                    all.add(t);
                } else if (o instanceof List<?> l) {
                    for (Object x : l) {
                        if (x instanceof Tensor t) {
                            all.add(t);
                        } else if (x instanceof List<?> inner) {
                            for (Object y : inner) {
                                if (y instanceof Tensor t) {
                                    all.add(t);
                                }
                            }
                        }
                    }
                }
            }
            return new CollectiveCall<>(op, options, decide, describe, body, all);
        }

        /** A call whose fingerprint is its op alone. */
        public static <P extends Plan, T> CollectiveCall<P, T> of(OpType op, CollectiveOptions options, Supplier<P> decide,
                                                                  BiFunction<CollectiveChannel, P, Mono<T>> body) {
            return new CollectiveCall<>(op, options, decide,
                    seq -> new CollectiveFingerprint(op, seq, null, List.of(), -1, null), body);
        }

        /** The name used in messages ({@code allReduce}). */
        public String name() {
            return op.displayName();
        }
    }
}
