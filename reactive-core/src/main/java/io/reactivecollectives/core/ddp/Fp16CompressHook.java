package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * c10d's {@code fp16_compress_hook}: each rank converts its bucket to IEEE 754 half precision ({@link DType#FLOAT16}),
 * divided by the world size, all-reduces that with SUM (half the bytes of FLOAT32 on the wire),
 * and converts the sum back into the bucket's buffer, which the {@code Mono} emits. Values round to
 * nearest-even on the way in; a sparse bucket is made dense first.
 *
 * <p>Overflow: half precision ends at 65504. A value whose share ({@code value / world}) or a partial
 * sum of the shares is beyond it becomes infinity, and so does the average in the bucket (NaN where
 * infinities of both signs meet), on every rank alike: nothing fails, as with c10d. c10d converts
 * before it divides ({@code buffer.to(float16).div_(world_size)}), so there any rank's value beyond
 * 65504 is already infinity; here the division comes first, so such a value survives when the
 * average fits. Scale the loss (or use {@link Bf16CompressHook}, whose range is float32's) where
 * gradients can be that large.
 */
public final class Fp16CompressHook implements CommHook {

    private final ProcessGroup group;

    /**
     * The hook for {@code group}.
     *
     * @param group the group the buckets are all-reduced over
     */
    public Fp16CompressHook(ProcessGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    @Override
    public Mono<Tensor> runHook(GradBucket bucket) {
        return CompressedAllReduce.run(group, bucket, DType.FLOAT16);
    }

    @Override
    public boolean singleCollective() {
        return true;
    }

    @Override
    public String toString() {
        return "Fp16CompressHook";
    }
}
