package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * c10d's {@code bf16_compress_hook}: each rank converts its bucket to bfloat16 ({@link DType#BFLOAT16}),
 * divided by the world size, all-reduces that with SUM (half the bytes of FLOAT32 on the wire),
 * and converts the sum back into the bucket's buffer, which the {@code Mono} emits. Values round to
 * nearest-even on the way in; a sparse bucket is made dense first.
 */
public final class Bf16CompressHook implements CommHook {

    private final ProcessGroup group;

    /**
     * The hook for {@code group}.
     *
     * @param group the group the buckets are all-reduced over
     */
    public Bf16CompressHook(ProcessGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    @Override
    public Mono<Tensor> runHook(GradBucket bucket) {
        return CompressedAllReduce.run(group, bucket, DType.BFLOAT16);
    }

    @Override
    public boolean singleCollective() {
        return true;
    }

    @Override
    public String toString() {
        return "Bf16CompressHook";
    }
}
