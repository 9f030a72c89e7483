package io.reactivecollectives.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.util.Pair;
import io.netty.util.internal.PlatformDependent;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.Tensors;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ddp.BroadcastCoalesced;
import io.reactivecollectives.core.ddp.GradientReducer;
import io.reactivecollectives.core.ddp.Parameter;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A model's trainable parameters seen as the library's {@link Parameter}s without copying: each
 * value and each gradient is a {@link Tensor} over the libtorch tensor's own memory
 * ({@code NDArray.toByteBuffer(true)}, a direct view of a contiguous CPU tensor). Reductions write
 * the averaged gradient straight into libtorch's {@code .grad}, and a broadcast writes rank 0's
 * values straight into the weights.
 *
 * <p>libtorch accumulates a backward pass into the existing {@code .grad} in place, so the views stay
 * valid from step to step; {@link #moved()} checks that (one call per parameter), and a view that
 * moved is made again by the owner. Gradient handles that DJL hands out are closed at once: a Java
 * handle held across a backward pass would make libtorch allocate a new gradient instead of
 * accumulating into the old one.
 */
final class ParameterViews implements AutoCloseable {

    private final List<String> ids = new ArrayList<>();
    private final List<NDArray> arrays = new ArrayList<>();
    private final List<Parameter> parameters = new ArrayList<>();
    /** The values of the parameters that take no gradient (frozen layers, running statistics), broadcast at initialize. */
    private final List<Tensor> fixed = new ArrayList<>();
    /** Which of {@link #fixed} the digest covers: all but running statistics, which each rank updates from its own batches. */
    private final List<Boolean> fixedChecked = new ArrayList<>();

    private ParameterViews() {
    }

    /**
     * Views of {@code block}'s parameters that require a gradient, in registration order, each
     * parameter once however many times the block lists it (a layer used twice). Every such
     * parameter must already have a gradient (run one backward pass, or
     * {@link DistributedTrainer}'s initialization does: a backward pass of zero).
     */
    static ParameterViews of(Block block) {
        ParameterViews views = new ParameterViews();
        java.util.Set<String> seen = new java.util.HashSet<>();
        try {
            for (Pair<String, ai.djl.nn.Parameter> p : block.getParameters()) {
                ai.djl.nn.Parameter param = p.getValue();
                if (!seen.add(param.getId())) {
                    continue;   // a block used twice (tied weights): one parameter, one gradient, one update, as DJL's own step
                }
                if (!param.requiresGradient()) {
                    NDArray frozen = param.getArray();
                    views.fixed.add(Tensors.wrap(direct(frozen, p.getKey(), "value").order(ByteOrder.LITTLE_ENDIAN),
                            fixedDtype(frozen.getDataType(), p.getKey()), frozen.getShape().getShape()));
                    views.fixedChecked.add(param.getType() != ai.djl.nn.Parameter.Type.RUNNING_MEAN
                            && param.getType() != ai.djl.nn.Parameter.Type.RUNNING_VAR);
                    continue;
                }
                NDArray array = param.getArray();
                String name = p.getKey();
                Tensor value = view(array, name, "value");
                Tensor grad;
                try (NDArray g = array.getGradient()) {
                    grad = view(g, name, "gradient");
                } catch (RuntimeException e) {
                    value.release();
                    throw e;
                }
                views.ids.add(param.getId());
                views.arrays.add(array);
                views.parameters.add(new Parameter(name, value, grad));
            }
        } catch (RuntimeException e) {
            views.close();
            throw e;
        }
        if (views.parameters.isEmpty()) {
            throw new IllegalArgumentException("DistributedTrainer: the model has no trainable parameters");
        }
        return views;
    }

    /** A tensor over {@code array}'s memory (no copy). */
    static Tensor view(NDArray array, String name, String what) {
        return Tensors.wrap(direct(array, name, what).order(ByteOrder.LITTLE_ENDIAN), dtype(array.getDataType(), name), array.getShape().getShape());
    }

    /** {@code array}'s own memory, refused unless it is a CPU tensor the engine lets us view. */
    private static ByteBuffer direct(NDArray array, String name, String what) {
        if (!ai.djl.Device.Type.CPU.equals(array.getDevice().getDeviceType())) {
            throw new IllegalArgumentException("DistributedTrainer: the " + what + " of parameter " + name + " is on "
                    + array.getDevice() + "; only CPU parameters are supported (a CUDA model's gradients go through reactive-cuda)");
        }
        ByteBuffer memory = array.toByteBuffer(true);
        if (!memory.isDirect()) {
            throw new IllegalArgumentException("DistributedTrainer: the " + what + " of parameter " + name
                    + " cannot be viewed in place (the engine " + array.getManager().getEngine().getEngineName()
                    + " returned a copy, not its memory); use DJL's PyTorch engine");
        }
        return memory;
    }

    /** The dtype of a parameter that takes no gradient: a floating one, or an integer or boolean one. */
    private static DType fixedDtype(DataType type, String name) {
        return switch (type) {
            case INT8 -> DType.INT8;
            case UINT8 -> DType.UINT8;
            case INT32 -> DType.INT32;
            case INT64 -> DType.INT64;
            case BOOLEAN -> DType.BOOL;
            default -> dtype(type, name);
        };
    }

    static DType dtype(DataType type, String name) {
        return switch (type) {
            case FLOAT32 -> DType.FLOAT32;
            case FLOAT64 -> DType.FLOAT64;
            case FLOAT16 -> DType.FLOAT16;
            case BFLOAT16 -> DType.BFLOAT16;
            default -> throw new IllegalArgumentException("DistributedTrainer: parameter " + name + " is " + type
                    + "; trainable parameters must be float32, float64, float16 or bfloat16");
        };
    }

    /** The parameters as the reducer sees them, in registration order. */
    List<Parameter> parameters() {
        return Collections.unmodifiableList(parameters);
    }

    /** The values of the parameters that take no gradient, in registration order. */
    List<Tensor> fixed() {
        return Collections.unmodifiableList(fixed);
    }

    /** How many parameters. */
    int size() {
        return parameters.size();
    }

    /** DJL's id of parameter {@code i} (what its {@code Optimizer} keys its state by). */
    String id(int i) {
        return ids.get(i);
    }

    /** The weight of parameter {@code i}. */
    NDArray array(int i) {
        return arrays.get(i);
    }

    /** Elements of all parameters together. */
    long numel() {
        long n = 0;
        for (Parameter p : parameters) {
            n += p.numel();
        }
        return n;
    }

    /** Whether any gradient no longer lives where its view points (then the views must be made again). */
    boolean moved() {
        for (int i = 0; i < arrays.size(); i++) {
            if (moved(i)) {
                return true;
            }
        }
        return false;
    }

    /** Whether parameter {@code i}'s gradient no longer lives where its view points. */
    boolean moved(int i) {
        try (NDArray g = arrays.get(i).getGradient()) {
            ByteBuffer memory = g.toByteBuffer(true);
            return !memory.isDirect() || PlatformDependent.directBufferAddress(memory) != parameters.get(i).grad().address();
        }
    }

    /** The optimizer's update of parameter {@code i} from its (averaged) gradient, which is then zeroed. */
    void update(ai.djl.training.optimizer.Optimizer optimizer, int i) {
        NDArray weight = arrays.get(i);
        try (NDArray grad = weight.getGradient()) {
            optimizer.update(ids.get(i), weight, grad);
        }
        zeroGradient(i);
    }

    /** Zeroes every gradient through its view (the partial sums a failed step left). */
    void zeroGradients() {
        for (int i = 0; i < parameters.size(); i++) {
            zeroGradient(i);
        }
    }

    /** Zeroes parameter {@code i}'s gradient through its view. */
    void zeroGradient(int i) {
        Tensor g = parameters.get(i).grad();
        g.buffer().setZero(0, (int) g.nbytes());
    }

    /**
     * CRC-32C of every value's bytes, in registration order, with each dtype and shape mixed in (its
     * dimensions, not only its element count: a (8, 4) weight on one rank and a (4, 8) one on another
     * would otherwise pass, and their gradients be averaged element by element).
     */
    long digest() {
        CRC32C crc = new CRC32C();
        long mixed = parameters.size();
        for (Parameter p : parameters) {
            crc.reset();
            crc.update(p.value().buffer().nioBuffer());
            mixed = mixed * 1_000_003L + crc.getValue() + p.numel() * 31;
            mixed = mixed * 31 + p.value().dtype().ordinal();
            for (long d : p.value().shape()) {
                mixed = mixed * 1_000_003L + d;
            }
            mixed = mixed * 31 + p.value().shape().length;
        }
        for (int i = 0; i < fixed.size(); i++) {
            if (fixedChecked.get(i)) {
                crc.reset();
                crc.update(fixed.get(i).buffer().nioBuffer());
                mixed = mixed * 1_000_003L + crc.getValue() + fixed.get(i).numel() * 37;
            }
        }
        return mixed * 31 + fixed.size();
    }

    /** Releases the views (libtorch's memory stays libtorch's). */
    @Override
    public void close() {
        for (Parameter p : parameters) {
            p.value().release();
            p.grad().release();
        }
        parameters.clear();
        fixed.forEach(Tensor::release);
        fixed.clear();
        fixedChecked.clear();
    }

    /**
     * Copies rank 0's values of the parameters that take no gradient into every rank's (DDP
     * broadcasts every parameter and buffer at construction); the trainable ones travel through the
     * reducer. Nothing when there are none.
     */
    Mono<Void> broadcastFixed(ProcessGroup group) {
        return fixed.isEmpty() ? Mono.empty() : BroadcastCoalesced.broadcastCoalesced(group, List.copyOf(fixed),
                GradientReducer.DEFAULT_BROADCAST_BUFFER_BYTES, 0).then();
    }
}
