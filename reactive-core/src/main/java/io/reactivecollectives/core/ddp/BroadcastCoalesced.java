package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Flattening;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * c10d's {@code broadcast_coalesced}: copies {@code root}'s tensors into every rank's tensors with as
 * few collectives as possible. Consecutive tensors of one dtype are flattened into buffers of at most
 * {@code bufferSizeBytes} (a tensor larger than that gets a buffer of its own), each buffer is
 * broadcast once, one after the other, and its contents are copied back into the tensors.
 */
public final class BroadcastCoalesced {

    private BroadcastCoalesced() {
    }

    /**
     * Broadcasts {@code tensors} from {@code root}.
     *
     * @param group           the group
     * @param tensors         the tensors, on the root the values sent
     * @param bufferSizeBytes the size of each flattened buffer
     * @param root            the root rank
     * @return a cold {@code Mono} that emits {@code tensors} (written in place on every rank but the
     *         root) once every buffer is broadcast, or the first collective's error; the temporary
     *         buffers are released whatever happens
     * @throws IllegalArgumentException (as the {@code Mono}'s error, nothing sent) for a non-CPU
     *         tensor, a bad root or a buffer size under 1
     */
    public static Mono<List<Tensor>> broadcastCoalesced(ProcessGroup group, List<Tensor> tensors, long bufferSizeBytes, int root) {
        return Mono.defer(() -> {
            Objects.requireNonNull(group, "group");
            if (bufferSizeBytes < 1) {
                throw new IllegalArgumentException("broadcastCoalesced: buffer size must be >= 1 byte, got " + bufferSizeBytes);
            }
            if (root < 0 || root >= group.size()) {
                throw new IllegalArgumentException("broadcastCoalesced: root " + root + " is not a rank of a group of " + group.size());
            }
            for (Tensor t : tensors) {
                if (!t.isCpu()) {
                    throw new IllegalArgumentException("broadcastCoalesced: only CPU tensors, got " + t);
                }
            }
            List<List<Tensor>> groups = partition(tensors, bufferSizeBytes);
            return Flux.fromIterable(groups)
                    .concatMap(g -> Mono.using(
                            () -> Flattening.flatten(g),
                            flat -> group.broadcast(flat, root).doOnNext(b -> Flattening.unflatten(b, g)),
                            Tensor::release))
                    .then(Mono.just(tensors));
        });
    }

    /** Splits {@code tensors} into runs of one dtype holding at most {@code bufferSizeBytes} (or one larger tensor). */
    static List<List<Tensor>> partition(List<Tensor> tensors, long bufferSizeBytes) {
        List<List<Tensor>> out = new ArrayList<>();
        List<Tensor> current = new ArrayList<>();
        long bytes = 0;
        DType dtype = null;
        for (Tensor t : tensors) {
            if (!current.isEmpty() && (t.dtype() != dtype || bytes + t.nbytes() > bufferSizeBytes)) {
                out.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(t);
            bytes += t.nbytes();
            dtype = t.dtype();
        }
        if (!current.isEmpty()) {
            out.add(current);
        }
        return out;
    }
}
