package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * A timeout with a fallback: every rank wants the global mean of a metric but will not wait more than
 * {@code timeout} for it; the last rank is a straggler that joins late. The all-reduce runs with a
 * per-call timeout, and {@code onErrorResume} turns the {@link CollectiveException} (a timeout here,
 * or the failure reported by the rank that timed out) into the rank's local value.
 *
 * <pre>bin/collectives-run --nproc-per-node 2 -- io.reactivecollectives.samples.examples.TimeoutWithFallback</pre>
 */
public final class TimeoutWithFallback {

    private TimeoutWithFallback() {
    }

    /** The outcome on one rank. */
    public record Outcome(double value, boolean fellBack, String reason) {
    }

    /** Emits the global mean if every rank joined within {@code timeout}, else this rank's own value. */
    public static Mono<Outcome> run(ProcessGroup group, Duration timeout, Duration stragglerDelay) {
        double local = 10.0 * (group.rank() + 1);
        boolean straggler = group.rank() == group.size() - 1;
        Mono<Outcome> mean = Mono.using(
                () -> Tensor.fromDoubles(DType.FLOAT64, new double[] {local}),
                t -> group.allReduce(t, ReduceOp.SUM, CollectiveOptions.timeout(timeout))
                        .map(sum -> new Outcome(sum.getDouble(0) / group.size(), false, "all ranks joined")),
                Tensor::release);
        return (straggler ? Mono.delay(stragglerDelay).then(mean) : mean)
                .onErrorResume(CollectiveException.class,
                        e -> Mono.just(new Outcome(local, true, e.getClass().getSimpleName() + ": " + e.getMessage())));
    }

    public static void main(String[] args) {
        Ranks.run(group -> run(group, Duration.ofMillis(500), Duration.ofSeconds(2)).doOnNext(o -> System.out.println(
                (o.fellBack() ? "fell back to the local value " : "global mean ") + o.value() + " (" + o.reason() + ")")));
    }
}
