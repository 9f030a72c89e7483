package io.reactivecollectives.transport.ops;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.transport.frame.P2PFrameCodec;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.runtime.GroupRuntime;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Send, receive, receive from any source, and batches of them. They take no sequence number: a
 * message matches by (source, tag), the n-th send with the n-th receive.
 */
public final class PointToPointOps {

    private final GroupRuntime runtime;

    public PointToPointOps(GroupRuntime runtime) {
        this.runtime = runtime;
    }

    public Mono<Void> send(Tensor tensor, int dst, int tag, CollectiveOptions options) {
        String name = OpType.SEND.displayName();
        int rank = runtime.rank();
        return runtime.settings().deliver(Mono.defer(() -> {
            timeout(name, options);
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requirePeer(name, dst, runtime.size(), "destination");
            if (dst == rank) {
                throw new IllegalArgumentException(name + ": rank " + rank + " cannot send to itself");
            }
            CollectiveException refused = runtime.p2pRefusal(name, dst);
            if (refused != null) {
                return Mono.error(refused);
            }
            Duration timeout = timeout(name, options);
            // a mesh that connects on demand connects first; the fragments are cut once the link is there
            return runtime.mesh().linkTo(dst).flatMap(link -> link.sendFragments(tag, P2PFrameCodec.kindOf(tensor.dtype()), fragments(tensor)))
                    .onErrorMap(e -> !(e instanceof CollectiveException), e -> {
                        CollectiveException ended = runtime.endedHere(name, -1);   // this rank aborted or closed its group meanwhile
                        return ended != null ? ended
                                : new PeerFailureException(name, rank, -1, dst, "cannot send to peer " + dst + ": " + e, e);
                    })
                    .timeout(timeout, Mono.defer(() -> Mono.error(new CollectiveTimeoutException(name, rank, -1,
                            dst, timeout, "send to rank " + dst + " with tag " + tag + " timed out after "
                            + timeout.toMillis() + " ms"))));
        }));
    }

    /** The tensor's bytes as retained slices of at most one frame's payload each. */
    private ByteBuf[] fragments(Tensor tensor) {
        int nbytes = (int) tensor.nbytes();
        int frag = runtime.settings().maxFramePayload();
        int count = Math.max(1, (nbytes + frag - 1) / frag);
        ByteBuf[] fragments = new ByteBuf[count];
        ByteBuf buf = tensor.buffer();
        for (int i = 0; i < count; i++) {
            int from = i * frag;
            fragments[i] = buf.retainedSlice(from, Math.min(frag, nbytes - from));
        }
        return fragments;
    }

    public Mono<Tensor> recv(Tensor tensor, int src, int tag, CollectiveOptions options) {
        String name = OpType.RECV.displayName();
        int rank = runtime.rank();
        return runtime.settings().deliver(Mono.defer(() -> {
            timeout(name, options);
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requireWritable(name, tensor, "tensor");
            CollectiveArguments.requirePeer(name, src, runtime.size(), "source");
            if (src == rank) {
                throw new IllegalArgumentException(name + ": rank " + rank + " cannot receive from itself");
            }
            CollectiveException refused = runtime.p2pRefusal(name, src);
            if (refused != null) {
                return Mono.error(refused);
            }
            Duration timeout = timeout(name, options);
            Object owner = claim(name, tensor, () -> name + " from rank " + src + " with tag " + tag);
            return claimed(owner, runtime.p2p().receive(name, tensor, src, tag, timeout.toNanos())
                    .timeout(timeout, Mono.defer(() -> Mono.error(new CollectiveTimeoutException(name, rank, -1,
                            src, timeout, "receive from rank " + src + " with tag " + tag + " timed out after "
                            + timeout.toMillis() + " ms")))))
                    .thenReturn(tensor);
        }));
    }

    public Mono<Integer> recvAnySource(Tensor tensor, int tag, CollectiveOptions options) {
        String name = OpType.RECVANYSOURCE.displayName();
        int rank = runtime.rank();
        return runtime.settings().deliver(Mono.defer(() -> {
            timeout(name, options);
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requireWritable(name, tensor, "tensor");
            CollectiveException refused = runtime.refusal(name);
            if (refused != null) {
                return Mono.error(refused);
            }
            Duration timeout = timeout(name, options);
            Object owner = claim(name, tensor, () -> name + " with tag " + tag);
            return claimed(owner, runtime.p2p().receiveAny(name, tensor, tag, timeout.toNanos())
                    .timeout(timeout, Mono.defer(() -> Mono.error(new CollectiveTimeoutException(name, rank, -1,
                            CollectiveException.NO_PEER, timeout, "receive from any rank with tag " + tag
                            + " timed out after " + timeout.toMillis() + " ms")))));
        }));
    }

    /**
     * Claims a receive's tensor ({@link io.reactivecollectives.transport.runtime.TensorClaims}): one an
     * in-flight collective or receive of this rank uses is refused, as a collective's is.
     */
    private Object claim(String name, Tensor tensor, java.util.function.Supplier<String> ownerName) {
        Object owner = new Object();
        String inUse = runtime.claims().claim(List.of(tensor), owner, ownerName);
        if (inUse != null) {
            throw new IllegalArgumentException(name + ": " + inUse);
        }
        return owner;
    }

    /** The receive, its claim given up before its result or error goes on (a chained call finds the tensor free). */
    private <T> Mono<T> claimed(Object owner, Mono<T> receive) {
        // on cancel, only once the cancel has reached the mailbox (doFinally runs after it; doOnCancel
        // before): until then an event loop may still be writing a fragment into the tensor
        return receive.doOnEach(signal -> runtime.claims().release(owner))
                .doFinally(s -> {
                    if (s == reactor.core.publisher.SignalType.CANCEL) {
                        runtime.claims().release(owner);
                    }
                });
    }

    /** The call's timeout (the group's by default); a forced algorithm is refused. */
    private Duration timeout(String name, CollectiveOptions options) {
        if (options == null) {
            throw new IllegalArgumentException(name + ": options is null");
        }
        if (options.algorithm() != Algorithm.AUTO) {
            throw new IllegalArgumentException(name + ": algorithm " + options.algorithm() + " does not implement "
                    + name + " (use AUTO)");
        }
        return options.timeout() != null ? options.timeout() : runtime.settings().timeout();
    }

    /**
     * c10d's batch_isend_irecv: every send and receive of {@code ops} issued at once (in list
     * order, so ops to one peer with one tag match in order), completing when all have; all ops are
     * checked before any is issued.
     */
    public Mono<Void> batchSendRecv(List<P2POp> ops) {
        return Mono.defer(() -> {
            CollectiveArguments.batchSendRecv(ops, runtime.rank(), runtime.size());
            for (int i = 0; i < ops.size(); i++) {
                CollectiveArguments.requireCpu("batchSendRecv", ops.get(i).tensor(), "ops[" + i + "] tensor");
            }
            // each recv claims its tensor as it is issued: one that would be refused is refused before any send goes out
            List<Tensor> received = new ArrayList<>();
            List<Integer> at = new ArrayList<>();
            for (int i = 0; i < ops.size(); i++) {
                if (ops.get(i).type() == P2POp.Type.RECV) {
                    received.add(ops.get(i).tensor());
                    at.add(i);
                }
            }
            String inUse = runtime.claims().check(received, k -> "ops[" + at.get(k) + "] (recv from rank "
                    + ops.get(at.get(k)).peer() + " with tag " + ops.get(at.get(k)).tag() + ")");
            if (inUse != null) {
                throw new IllegalArgumentException("batchSendRecv: " + inUse);
            }
            List<Mono<?>> all = new ArrayList<>(ops.size());
            for (P2POp o : ops) {
                all.add(o.type() == P2POp.Type.SEND ? send(o.tensor(), o.peer(), o.tag(), CollectiveOptions.DEFAULT)
                        : recv(o.tensor(), o.peer(), o.tag(), CollectiveOptions.DEFAULT));
            }
            return Mono.when(all);
        });
    }
}
