package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.kernels.ReduceKernels;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The fused transfer stages algorithms are built from: send a byte range of a tensor's buffer
 * (zero-copy, as a retained slice), receive a piece and reduce it into place, receive a piece and
 * copy it into place. Received payloads are released as soon as they were used, also on error and
 * cancellation.
 */
public final class Transfers {

    private Transfers() {
    }

    /**
     * Received pieces of at least this many bytes are reduced or copied into place on
     * {@link Schedulers#parallel()} instead of the connection's event loop, so the loop goes on
     * reading and writing while another core does the arithmetic (gloo likewise keeps its I/O
     * thread apart from the reducing thread). System property {@code rc.transport.offloadBytes};
     * the default is 1 MiB on hosts with 4 or more processors and off (0) below, where there is no
     * spare core to hand the work to.
     */
    public static final long OFFLOAD_BYTES = Long.getLong("rc.transport.offloadBytes",
            Runtime.getRuntime().availableProcessors() >= 4 ? 1L << 20 : 0L);

    private static Mono<ByteBuf> offloaded(Mono<ByteBuf> received, long bytes) {
        return OFFLOAD_BYTES > 0 && bytes >= OFFLOAD_BYTES
                ? received.publishOn(Schedulers.parallel()).doOnDiscard(ByteBuf.class, ReferenceCountUtil::safeRelease)
                : received;
    }

    /** Sends bytes {@code [index, index + length)} of {@code buf} to {@code peer}, without copying them. */
    public static Mono<Void> send(Peers p, int peer, int step, int chunk, ByteBuf buf, int index, int length) {
        return Mono.defer(() -> p.send(peer, step, chunk, buf.retainedSlice(index, length)));
    }

    /** Receives a piece from {@code peer} and reduces its {@code count} elements into {@code dst} at {@code index}. */
    public static Mono<Void> receiveReduce(Peers p, int peer, int step, int chunk, ReduceOp op, DType dtype,
                                           ByteBuf dst, int index, int count) {
        return offloaded(p.receiveScattered(peer, step, chunk), (long) count * dtype.byteSize()).flatMap(b -> {
            try {
                checkLength(p, peer, step, chunk, b, count * dtype.byteSize());
                if (count > 0) {
                    ReduceKernels.reduceIntoScattered(op, dtype, dst, index, b, b.readerIndex(), count);
                }
                return Mono.<Void>empty();
            } catch (RuntimeException e) {
                return Mono.<Void>error(e);
            } finally {
                b.release();
            }
        });
    }

    /** Receives a piece of {@code length} bytes from {@code peer} and copies it into {@code dst} at {@code index}. */
    public static Mono<Void> receiveCopy(Peers p, int peer, int step, int chunk, ByteBuf dst, int index, int length) {
        return offloaded(p.receiveScattered(peer, step, chunk), length).flatMap(b -> {
            try {
                checkLength(p, peer, step, chunk, b, length);
                dst.setBytes(index, b, b.readerIndex(), length);
                return Mono.<Void>empty();
            } catch (RuntimeException e) {
                return Mono.<Void>error(e);
            } finally {
                b.release();
            }
        });
    }

    /**
     * Sends bytes {@code [index, index + count * elementSize)} of {@code buf} to {@code peer} and
     * receives the peer's piece for the same range; once <em>both</em> are done (so the memory
     * being sent is no longer read), reduces the received piece into that range.
     */
    public static Mono<Void> exchangeReduce(Peers p, int peer, int step, int chunk, ReduceOp op, DType dtype,
                                            ByteBuf buf, int index, int count) {
        int length = count * dtype.byteSize();
        return Mono.zip(send(p, peer, step, chunk, buf, index, length).thenReturn(Boolean.TRUE),
                        offloaded(p.receiveScattered(peer, step, chunk), length))
                .flatMap(t -> {
                    ByteBuf b = t.getT2();
                    try {
                        checkLength(p, peer, step, chunk, b, length);
                        if (count > 0) {
                            ReduceKernels.reduceIntoScattered(op, dtype, buf, index, b, b.readerIndex(), count);
                        }
                        return Mono.<Void>empty();
                    } catch (RuntimeException e) {
                        return Mono.<Void>error(e);
                    } finally {
                        b.release();
                    }
                })
                .doOnDiscard(ByteBuf.class, ReferenceCountUtil::safeRelease);
    }

    private static void checkLength(Peers p, int peer, int step, int chunk, ByteBuf b, int want) {
        if (b.readableBytes() != want) {
            throw p.protocolError(peer, "rank " + peer + " sent " + b.readableBytes() + " bytes for step " + step
                    + " chunk " + chunk + ", expected " + want + " (do the tensors have the same size on every rank?)");
        }
    }

    /** Elements of dtype per segment of {@code segmentBytes}, at least 1. */
    public static int segmentElements(int segmentBytes, DType dtype) {
        return Math.max(1, segmentBytes / dtype.byteSize());
    }

    /** Number of segments of {@code segElems} in {@code numel} elements, at least 1. */
    public static int lanes(long numel, int segElems) {
        return (int) Math.max(1, (numel + segElems - 1) / segElems);
    }
}
