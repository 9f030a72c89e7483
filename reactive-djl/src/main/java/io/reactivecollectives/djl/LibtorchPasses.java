package io.reactivecollectives.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.training.Trainer;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * A trainer's passes through libtorch: the parameters' initialization, the forward and backward
 * passes, in one piece or stage by stage ({@link StagedBlock}). DJL's PyTorch engine allows one
 * collecting {@code GradientCollector} per JVM and has one random generator, so every pass holds
 * one lock per JVM: trainers of several ranks in one JVM take turns.
 */
final class LibtorchPasses {

    /** DJL's PyTorch engine allows one collecting {@code GradientCollector} per JVM. */
    private static final ReentrantLock COLLECTOR = new ReentrantLock();

    private final Trainer trainer;
    private ParameterStore store;
    /** The pass running got a stage's gradients to the reducer (then some of it may have been sent). */
    private boolean stageDone;
    /** The last pass failed before any of its gradients reached the reducer; read and cleared by {@link #tellPeers}. */
    private volatile boolean failedUnsent;

    LibtorchPasses(Trainer trainer) {
        this.trainer = trainer;
    }

    /**
     * The initializers draw from libtorch's one generator per JVM: with a seed, seeding and drawing
     * happen under the lock, so ranks sharing a JVM do not interleave their draws.
     */
    void initialize(Integer seed, Shape... inputShapes) {
        COLLECTOR.lock();
        try {
            if (seed != null) {
                trainer.getManager().getEngine().setRandomSeed(seed);
            }
            trainer.initialize(inputShapes);
        } finally {
            COLLECTOR.unlock();
        }
    }

    /** One backward pass of zero, so that every trainable parameter has a {@code .grad} to view. */
    void materializeGradients() {
        COLLECTOR.lock();
        try (NDManager scope = trainer.getManager().newSubManager();
             GradientCollector collector = trainer.newGradientCollector()) {
            NDArray total = null;
            // not mul(0): DJL's PyTorch engine wraps a Number in a tensor over memory it frees right after the
            // operation, while autograd keeps it for the backward pass, which then multiplies by whatever that
            // memory holds after a garbage collection: garbage, even NaN, in every first gradient (seen in CI)
            NDArray zero = scope.create(0f);
            for (var p : trainer.getModel().getBlock().getParameters()) {
                if (p.getValue().requiresGradient()) {
                    NDArray zeroed = p.getValue().getArray().mul(zero);
                    zeroed.attach(scope); // what is computed from it lives in the scope too
                    NDArray sum = zeroed.sum();
                    total = total == null ? sum : total.add(sum);
                }
            }
            if (total != null) {
                collector.backward(total);
            }
        } finally {
            COLLECTOR.unlock();
        }
    }

    /** Forward, loss and one backward pass; returns the loss. */
    float forwardBackward(NDList data, NDList labels) {
        return underCollector(data, labels, collector -> {
            NDArray loss = trainer.getLoss().evaluate(labels, trainer.forward(data, labels));
            collector.backward(loss);
            return loss.getFloat();
        });
    }

    /**
     * {@code pass} under the JVM's lock with a gradient collector, everything it makes (and, for its
     * duration, the batch) in a scope closed after it.
     */
    private float underCollector(NDList data, NDList labels, java.util.function.ToDoubleFunction<GradientCollector> pass) {
        COLLECTOR.lock();
        failedUnsent = false;
        stageDone = false;
        try (NDManager scope = trainer.getManager().newSubManager()) {
            data.tempAttach(scope);
            labels.tempAttach(scope);
            try (GradientCollector collector = trainer.newGradientCollector()) {
                return (float) pass.applyAsDouble(collector);
            }
        } catch (RuntimeException | Error e) {
            failedUnsent = !stageDone;
            throw e;
        } finally {
            COLLECTOR.unlock();
        }
    }

    /**
     * Forward stage by stage (each stage's inputs cut from the graph of the stage before), the loss,
     * then the backward pass of the last stage and of each earlier one from the gradient its
     * successor left on its outputs; {@code stageDone} hears each stage, last first, as soon as its
     * parameters' gradients are final. Returns the loss.
     */
    float forwardBackwardStaged(StagedBlock block, NDList data, NDList labels, IntConsumer stageDone) {
        int n = block.stageCount();
        ParameterStore store = parameterStore();
        return underCollector(data, labels, collector -> {
            NDList[] inputs = new NDList[n];
            NDList[] outputs = new NDList[n];
            for (int s = 0; s < n; s++) {
                inputs[s] = s == 0 ? data : cut(outputs[s - 1]);
                outputs[s] = block.forwardStage(s, store, inputs[s], true);
            }
            NDArray loss = trainer.getLoss().evaluate(labels, outputs[n - 1]);
            collector.backward(loss);
            this.stageDone = true;
            stageDone.accept(n - 1);
            boolean[] trainable = trainableUpTo(block);
            for (int s = n - 2; s >= 0; s--) {
                // stages of frozen layers only, on the data alone, have no graph to differentiate
                NDArray surrogate = trainable[s] ? surrogate(outputs[s], inputs[s + 1]) : null;
                if (surrogate != null) {
                    collector.backward(surrogate);
                }
                stageDone.accept(s);
            }
            return loss.getFloat();
        });
    }

    /** For each stage, whether it or a stage before it has a parameter that takes a gradient. */
    private static boolean[] trainableUpTo(StagedBlock block) {
        boolean[] out = new boolean[block.stageCount()];
        boolean any = false;
        for (int s = 0; s < out.length; s++) {
            for (var p : block.stageParameters(s)) {
                any |= p.getValue().requiresGradient();
            }
            out[s] = any;
        }
        return out;
    }

    /**
     * {@code error}, the error of a step on this rank; when it is its pass's, and the pass failed
     * before any of its gradients reached the reducer, the peers are told first. They wait in the
     * step's all-reduces, and would until their timeout: this rank takes part in one collective of
     * its own (3 int32s all-gathered), which meets theirs as a mismatch naming this rank, so they fail
     * at once. Where every rank's pass failed alike, the ranks' notices meet and complete, and the
     * ranks stay in step. The notice's own error is added to {@code error} as suppressed.
     */
    <T> Mono<T> tellPeers(ProcessGroup group, Throwable error) {
        if (!failedUnsent) {
            return Mono.error(error);
        }
        failedUnsent = false;
        return Mono.using(() -> {
                    List<Tensor> outputs = new ArrayList<>();
                    for (int r = 0; r < group.size(); r++) {
                        outputs.add(Tensor.zeros(DType.INT32, 3));
                    }
                    outputs.add(Tensor.fromInts(new int[] {-1, -1, -1}));
                    return outputs;
                }, all -> group.allGather(all.subList(0, group.size()), all.get(group.size())).then(),
                all -> all.forEach(Tensor::release))
                .onErrorResume(notice -> {
                    error.addSuppressed(notice);
                    return Mono.empty();
                })
                .then(Mono.error(error));
    }

    /** Each floating output detached from its graph as a new leaf that collects its gradient. */
    private static NDList cut(NDList outputs) {
        NDList cut = new NDList(outputs.size());
        for (NDArray out : outputs) {
            NDArray leaf = out.stopGradient();
            if (leaf.getDataType().isFloating()) {
                leaf.setRequiresGradient(true);
            }
            cut.add(leaf);
        }
        return cut;
    }

    /**
     * sum(output x gradient of its cut copy) over the outputs: its backward pass hands each output
     * exactly that gradient. Null when no output received one.
     */
    private static NDArray surrogate(NDList outputs, NDList cut) {
        NDArray total = null;
        for (int k = 0; k < outputs.size(); k++) {
            NDArray leaf = cut.get(k);
            if (!leaf.getDataType().isFloating()) {
                continue;
            }
            NDArray term;
            try (NDArray g = leaf.getGradient()) {
                term = outputs.get(k).mul(g).sum();
            }
            total = total == null ? term : total.add(term);
        }
        return total;
    }

    /** The DJL trainer's own parameter store (private in DJL; its forward pass uses it). */
    private ParameterStore parameterStore() {
        if (store != null) {
            return store;
        }
        try {
            Field f = Trainer.class.getDeclaredField("parameterStore");
            f.setAccessible(true);
            store = (ParameterStore) f.get(trainer);
            return store;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("DistributedTrainer: cannot reach DJL's Trainer.parameterStore for a staged"
                    + " backward pass (another DJL version?); build the trainer with stagedBackward(false)", e);
        }
    }
}
