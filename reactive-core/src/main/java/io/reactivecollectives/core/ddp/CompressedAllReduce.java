package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * The shared body of the 16-bit compression hooks: compress the bucket to {@code wire} divided by the
 * world size, all-reduce with SUM, decompress into the bucket's buffer.
 */
final class CompressedAllReduce {

    private CompressedAllReduce() {
    }

    static Mono<Tensor> run(ProcessGroup group, GradBucket bucket, DType wire) {
        return Mono.defer(() -> {
            Tensor source = bucket.isSparse() ? bucket.toDense() : bucket.buffer();
            Tensor compressed;
            try {
                compressed = FloatOps.convert(source, wire, 1.0 / group.size());
            } catch (RuntimeException e) {
                releaseCopy(source, bucket);
                throw e;
            }
            return group.allReduce(compressed, ReduceOp.SUM)
                    .map(reduced -> {
                        FloatOps.copyConverting(source, reduced);
                        return source;
                    })
                    .doOnError(e -> releaseCopy(source, bucket))
                    .doOnCancel(() -> releaseCopy(source, bucket))
                    .doFinally(s -> compressed.release());
        });
    }

    private static void releaseCopy(Tensor source, GradBucket bucket) {
        if (source != bucket.buffer()) {
            source.release();
        }
    }
}
