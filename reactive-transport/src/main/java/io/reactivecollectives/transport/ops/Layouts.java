package io.reactivecollectives.transport.ops;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.algorithms.Region;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.function.Function;

/** How op families lay tensors out as {@link Region}s for the algorithms, and their shared checks. Stateless. */
final class Layouts {

    private Layouts() {
    }

    /** Every tensor of {@code ts} (may be null: checked elsewhere) is on the CPU. */
    static void requireCpu(String op, List<Tensor> ts, String what) {
        if (ts != null) {
            for (int i = 0; i < ts.size(); i++) {
                CollectiveArguments.requireCpu(op, ts.get(i), what + "[" + i + "]");
            }
        }
    }

    /** No tensor of {@code ts} (may be null: checked elsewhere) is read-only: the collective writes into them. */
    static void requireWritable(String op, List<Tensor> ts, String what) {
        if (ts != null) {
            for (int i = 0; i < ts.size(); i++) {
                CollectiveArguments.requireWritable(op, ts.get(i), what + "[" + i + "]");
            }
        }
    }

    static Region[] regions(List<Tensor> ts) {
        Region[] out = new Region[ts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Region.of(ts.get(i));
        }
        return out;
    }

    /** {@code n} equal consecutive regions of a tensor's bytes. */
    static Region[] split(Tensor t, int n) {
        Region all = Region.of(t);
        int each = all.length() / n;
        Region[] out = new Region[n];
        for (int i = 0; i < n; i++) {
            out[i] = all.sub(i * each, each);
        }
        return out;
    }

    /** {@code body} over a fresh buffer of {@code bytes}, released after. */
    static Mono<Void> withBuffer(int bytes, Function<ByteBuf, Mono<Void>> body) {
        return Mono.usingWhen(Mono.fromCallable(() -> Region.allocate(bytes)), body,
                b -> Mono.fromRunnable(b::release));
    }
}
