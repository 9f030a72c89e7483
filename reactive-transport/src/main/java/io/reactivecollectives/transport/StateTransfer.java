package io.reactivecollectives.transport;

import io.reactivecollectives.core.Codec;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ElasticState;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Hands an {@link ElasticState} from one rank to every other of a new generation: each tensor is
 * broadcast in place from the source, one after the other (so memory stays bounded by what the
 * application already holds, and the collective's own flow control paces the sender), then the
 * metadata; then every rank's CRC32C digest of what it holds is all-gathered and compared with the
 * source's, so a rank that holds anything else fails, naming itself and the ranks that differ,
 * before any step is taken. The joiners then restore the metadata.
 */
final class StateTransfer {

    private static final String OP = "stateTransfer";

    private StateTransfer() {
    }

    /**
     * @param group     the new generation
     * @param source    the rank that sends (a member of the generation before)
     * @param state     this rank's state (overwritten unless this rank is the source)
     * @param restore   whether this rank restores the metadata (a joiner)
     * @return a cold {@code Mono} of the number of bytes of tensors moved
     */
    static Mono<Long> run(ProcessGroup group, int source, ElasticState state, boolean restore) {
        return Mono.defer(() -> {
            List<Tensor> tensors = state.tensors();
            byte[] mine = group.rank() == source ? state.metadata() : null;
            long bytes = tensors.stream().mapToLong(Tensor::nbytes).sum();
            return Flux.fromIterable(tensors)
                    .concatMap(t -> group.broadcast(t, source))
                    .then(group.broadcastObject(mine, source, Codec.bytes()))
                    .flatMap(meta -> check(group, source, tensors, meta).thenReturn(meta))
                    .doOnNext(meta -> {
                        if (restore) {
                            state.restore(meta);
                        }
                    })
                    .thenReturn(bytes);
        });
    }

    /**
     * After a recovery: the ranks compare {@link ElasticState#version()}s; when they differ, the
     * lowest rank holding the highest sends its state and the ranks behind restore it.
     *
     * @param group the new generation
     * @param state this rank's state
     * @return a cold {@code Mono} of the rank that sent, or -1 when the versions agreed
     */
    static Mono<Integer> resync(ProcessGroup group, ElasticState state) {
        return Mono.defer(() -> {
            long mine = state.version();
            return allGather(group, mine)
                    .flatMap(versions -> {
                        int source = 0;
                        for (int r = 1; r < versions.length; r++) {
                            if (versions[r] > versions[source]) {
                                source = r;
                            }
                        }
                        long top = versions[source];
                        if (java.util.Arrays.stream(versions).allMatch(v -> v == top)) {
                            return Mono.just(-1);
                        }
                        return run(group, source, state, mine != top).thenReturn(source);
                    });
        });
    }

    private static Mono<Void> check(ProcessGroup group, int source, List<Tensor> tensors, byte[] meta) {
        return allGather(group, digest(tensors, meta))
                .doOnNext(digests -> {
                    List<Integer> differ = new ArrayList<>();
                    for (int r = 0; r < digests.length; r++) {
                        if (digests[r] != digests[source]) {
                            differ.add(r);
                        }
                    }
                    if (!differ.isEmpty()) {
                        throw new CollectiveException(OP, group.rank(), -1, "after the state transfer from rank "
                                + source + " of group '" + group.groupId() + "', ranks " + differ
                                + " hold another state (CRC32C digests " + java.util.Arrays.toString(digests)
                                + "); no step may be taken on it");
                    }
                })
                .then();
    }

    /** Every rank's {@code value}, by rank. */
    private static Mono<long[]> allGather(ProcessGroup group, long value) {
        return Mono.using(() -> new Tensor[] {Tensor.zeros(DType.INT64, group.size()), Tensor.fromLongs(new long[] {value}, 1)},
                t -> group.allGatherInto(t[0], t[1]).map(Tensor::toLongArray),
                t -> {
                    t[0].release();
                    t[1].release();
                });
    }

    /** CRC32C of every tensor's bytes, in order, then of the metadata. */
    static long digest(List<Tensor> tensors, byte[] meta) {
        CRC32C crc = new CRC32C();
        for (Tensor t : tensors) {
            long at = t.buffer().readerIndex();
            for (long left = t.nbytes(); left > 0; ) {   // a tensor may pass 2 GiB: in pieces
                int n = (int) Math.min(left, 1 << 30);
                ByteBuffer b = t.buffer().nioBuffer(Math.toIntExact(at), n);
                crc.update(b);
                at += n;
                left -= n;
            }
        }
        crc.update(meta);
        return crc.getValue();
    }
}
