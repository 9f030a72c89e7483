package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@link HostStagedProcessGroup#allReduceStream}: each CUDA chunk of the stream is copied in (up to
 * {@code prefetch} ahead), the host copies go through the wrapped group's {@code allReduceStream},
 * each reduced chunk is copied back, and the original chunks are emitted in order. CPU chunks pass
 * through unstaged.
 */
final class StagedStream {

    private StagedStream() {
    }

    /** A chunk of a stream and its host copy. */
    private record StreamItem(Chunk chunk, ChunkPipeline.Staged staged) {
    }

    /** The staged stream of operation {@code id}; to be run in the group's turn. */
    static Flux<Chunk> allReduce(ProcessGroup cpu, ChunkPipeline pipeline, long id, Flux<Chunk> chunks, ReduceOp op,
                                 int prefetch) {
        ConcurrentLinkedQueue<StreamItem> inflight = new ConcurrentLinkedQueue<>();
        Flux<Chunk> staged = chunks
                .flatMapSequential(c -> {
                    CollectiveArguments.requireReduceOp("allReduceStream", op, c.dtype());
                    if (c.tensor().isCpu()) {
                        return Mono.just(new StreamItem(c, new ChunkPipeline.Staged(c.index(), c.tensor(), c.tensor(), false)));
                    }
                    return pipeline.stageIn("allReduceStream", id, c.index(), c.tensor(), true)
                            .map(s -> new StreamItem(c, s));
                }, prefetch, 1)
                .doOnNext(inflight::offer)
                .map(i -> new Chunk(i.chunk.index(), i.chunk.elementOffset(), i.staged.host));
        return cpu.allReduceStream(staged, op, prefetch)
                .flatMapSequential(reduced -> {
                    StreamItem i = inflight.poll();
                    if (i == null || i.chunk.index() != reduced.index()) {
                        if (i != null) {
                            i.staged.release();
                        }
                        return Mono.error(new IllegalStateException("allReduceStream: reduced chunk "
                                + reduced.index() + " does not match the staged chunk "
                                + (i == null ? "(none)" : String.valueOf(i.chunk.index()))));
                    }
                    boolean copyBack = !i.chunk.tensor().isCpu();
                    return pipeline.stageOut("allReduceStream", id, i.staged, copyBack).thenReturn(i.chunk);
                }, prefetch, 1)
                .doOnDiscard(StreamItem.class, i -> i.staged.release())
                .doOnDiscard(ChunkPipeline.Staged.class, ChunkPipeline.Staged::release)
                .doFinally(sig -> {
                    StreamItem i;
                    while ((i = inflight.poll()) != null) {
                        i.staged.release();
                    }
                });
    }
}
