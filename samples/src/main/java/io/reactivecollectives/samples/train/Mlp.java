package io.reactivecollectives.samples.train;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.ddp.Parameter;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;

/**
 * A multilayer perceptron in plain Java: linear layers with ReLU between them, softmax
 * cross-entropy loss, SGD with momentum. Weights are stored {@code [in, out]} so that every inner
 * loop is a vectorisable {@code y += a * x}. Each layer's weight and bias are also {@link Parameter}s
 * (off-heap tensors) for the collectives: {@link #pullValues()} reads the tensors' values into the
 * arrays, {@link #pushGradient(int)} copies a layer's gradients out to its tensors, and
 * {@link #pullGradients()} reads the reduced gradients back.
 */
public final class Mlp implements AutoCloseable {

    private final int[] dims;
    private final int layers;
    private final float[][] w;
    private final float[][] b;
    private final float[][] wt;      // transposed weights [out, in], for the input gradients
    private final float[][] gw;
    private final float[][] gb;
    private final float[][] mw;      // momentum buffers
    private final float[][] mb;
    private final List<Parameter> parameters = new ArrayList<>();
    /** {@link #exportState()}'s tensors, made on first use. */
    private final List<Tensor> state = new ArrayList<>();

    // activations of the last forward pass: act[0] = input, act[l] = output of layer l (after ReLU except the last)
    private float[][] act;
    private float[][] delta;
    private int batch;

    /**
     * @param dims layer widths, input first, classes last ({@code [32, 128, 128, 8]})
     * @param seed initial weights (uniform +-1/sqrt(fan in), as torch's nn.Linear)
     */
    public Mlp(int[] dims, long seed) {
        if (dims.length < 2) {
            throw new IllegalArgumentException("an MLP needs at least input and output widths");
        }
        this.dims = dims.clone();
        this.layers = dims.length - 1;
        w = new float[layers][];
        b = new float[layers][];
        wt = new float[layers][];
        gw = new float[layers][];
        gb = new float[layers][];
        mw = new float[layers][];
        mb = new float[layers][];
        SplittableRandom r = new SplittableRandom(seed);
        for (int l = 0; l < layers; l++) {
            int in = dims[l];
            int out = dims[l + 1];
            double bound = 1 / Math.sqrt(in);
            w[l] = new float[in * out];
            b[l] = new float[out];
            for (int i = 0; i < w[l].length; i++) {
                w[l][i] = (float) ((2 * r.nextDouble() - 1) * bound);
            }
            for (int i = 0; i < out; i++) {
                b[l][i] = (float) ((2 * r.nextDouble() - 1) * bound);
            }
            wt[l] = new float[in * out];
            gw[l] = new float[in * out];
            gb[l] = new float[out];
            mw[l] = new float[in * out];
            mb[l] = new float[out];
            parameters.add(new Parameter("layer" + l + ".weight", tensorOf(w[l], in, out), Tensor.zeros(DType.FLOAT32, in, out)));
            parameters.add(new Parameter("layer" + l + ".bias", tensorOf(b[l], out), Tensor.zeros(DType.FLOAT32, out)));
        }
    }

    private static Tensor tensorOf(float[] values, long... shape) {
        return Tensor.fromFloats(values, shape);
    }

    static FloatBuffer floats(Tensor t) {
        return t.buffer().nioBuffer(0, (int) t.nbytes()).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    }

    public int layerCount() {
        return layers;
    }

    public int[] dims() {
        return dims.clone();
    }

    /** Weight and bias of every layer, in forward order (weight0, bias0, weight1, ...). */
    public List<Parameter> parameters() {
        return parameters;
    }

    /** The weight parameter of layer {@code l}. */
    public Parameter weight(int l) {
        return parameters.get(2 * l);
    }

    /** The bias parameter of layer {@code l}. */
    public Parameter bias(int l) {
        return parameters.get(2 * l + 1);
    }

    /** Number of trainable values. */
    public long parameterCount() {
        long n = 0;
        for (Parameter p : parameters) {
            n += p.numel();
        }
        return n;
    }

    /** Reads the parameter tensors' values into the arrays (after a broadcast). */
    public void pullValues() {
        for (int l = 0; l < layers; l++) {
            floats(weight(l).value()).get(w[l]);
            floats(bias(l).value()).get(b[l]);
        }
    }

    /** Copies layer {@code l}'s computed gradients into its parameters' grad tensors. */
    public void pushGradient(int l) {
        floats(weight(l).grad()).put(gw[l]);
        floats(bias(l).grad()).put(gb[l]);
    }

    /** Reads every parameter's grad tensor (reduced) back into the gradient arrays. */
    public void pullGradients() {
        for (int l = 0; l < layers; l++) {
            floats(weight(l).grad()).get(gw[l]);
            floats(bias(l).grad()).get(gb[l]);
        }
    }

    /** Writes layer {@code l}'s gradients (weight then bias) into {@code dst} from element {@code offset}. */
    public void copyGradient(int l, FloatBuffer dst) {
        dst.put(gw[l]);
        dst.put(gb[l]);
    }

    /** Reads layer {@code l}'s gradients (weight then bias) from {@code src}, multiplied by {@code scale}. */
    public void readGradient(int l, FloatBuffer src, float scale) {
        src.get(gw[l]);
        src.get(gb[l]);
        if (scale != 1f) {
            for (int i = 0; i < gw[l].length; i++) {
                gw[l][i] *= scale;
            }
            for (int i = 0; i < gb[l].length; i++) {
                gb[l][i] *= scale;
            }
        }
    }

    /** Elements of layer {@code l}'s weight and bias together. */
    public int layerSize(int l) {
        return gw[l].length + gb[l].length;
    }

    /**
     * Forward pass over {@code rows} samples of {@code x}; returns the mean cross-entropy loss
     * and keeps the activations for {@link #backward}.
     */
    public double forward(float[] x, int[] labels, int rows) {
        if (act == null || batch != rows) {
            batch = rows;
            act = new float[layers + 1][];
            delta = new float[layers + 1][];
            for (int l = 0; l <= layers; l++) {
                act[l] = new float[rows * dims[l]];
                delta[l] = new float[rows * dims[l]];
            }
        }
        System.arraycopy(x, 0, act[0], 0, rows * dims[0]);
        for (int l = 0; l < layers; l++) {
            int in = dims[l];
            int out = dims[l + 1];
            float[] a = act[l];
            float[] z = act[l + 1];
            float[] wl = w[l];
            float[] bl = b[l];
            for (int r = 0; r < rows; r++) {
                int zo = r * out;
                System.arraycopy(bl, 0, z, zo, out);
                for (int i = 0; i < in; i++) {
                    float av = a[r * in + i];
                    if (av == 0f) {
                        continue;
                    }
                    int wo = i * out;
                    for (int o = 0; o < out; o++) {
                        z[zo + o] += av * wl[wo + o];
                    }
                }
                if (l < layers - 1) {
                    for (int o = 0; o < out; o++) {
                        if (z[zo + o] < 0f) {
                            z[zo + o] = 0f;
                        }
                    }
                }
            }
        }
        // softmax cross-entropy; delta[layers] = (softmax - onehot) / rows
        int classes = dims[layers];
        float[] logits = act[layers];
        float[] d = delta[layers];
        double loss = 0;
        for (int r = 0; r < rows; r++) {
            int o = r * classes;
            float max = Float.NEGATIVE_INFINITY;
            for (int c = 0; c < classes; c++) {
                max = Math.max(max, logits[o + c]);
            }
            double sum = 0;
            for (int c = 0; c < classes; c++) {
                sum += Math.exp(logits[o + c] - max);
            }
            double logSum = Math.log(sum) + max;
            loss += logSum - logits[o + labels[r]];
            for (int c = 0; c < classes; c++) {
                double p = Math.exp(logits[o + c] - logSum);
                d[o + c] = (float) ((p - (c == labels[r] ? 1 : 0)) / rows);
            }
        }
        return loss / rows;
    }

    /**
     * Backward pass from the last layer to the first; after layer {@code l}'s gradients are computed
     * {@code layerDone.accept(l)} is called (so its gradients can be sent while earlier layers are
     * still being computed).
     */
    public void backward(IntConsumer layerDone) {
        for (int l = layers - 1; l >= 0; l--) {
            backwardLayer(l);
            layerDone.accept(l);
        }
    }

    /** Computes layer {@code l}'s gradients; layers must go from the last to the first. */
    public void backwardLayer(int l) {
        int rows = batch;
        int in = dims[l];
        int out = dims[l + 1];
        float[] a = act[l];
        float[] dz = delta[l + 1];
        float[] gwl = gw[l];
        float[] gbl = gb[l];
        java.util.Arrays.fill(gwl, 0f);
        java.util.Arrays.fill(gbl, 0f);
        for (int r = 0; r < rows; r++) {
            int zo = r * out;
            for (int o = 0; o < out; o++) {
                gbl[o] += dz[zo + o];
            }
            for (int i = 0; i < in; i++) {
                float av = a[r * in + i];
                if (av == 0f) {
                    continue;
                }
                int wo = i * out;
                for (int o = 0; o < out; o++) {
                    gwl[wo + o] += av * dz[zo + o];
                }
            }
        }
        if (l > 0) {
            // delta of the previous layer: (dz W^T) masked by the ReLU
            float[] wtl = wt[l];
            float[] wl = w[l];
            for (int i = 0; i < in; i++) {
                for (int o = 0; o < out; o++) {
                    wtl[o * in + i] = wl[i * out + o];
                }
            }
            float[] da = delta[l];
            java.util.Arrays.fill(da, 0, rows * in, 0f);
            for (int r = 0; r < rows; r++) {
                int ao = r * in;
                for (int o = 0; o < out; o++) {
                    float g = dz[r * out + o];
                    if (g == 0f) {
                        continue;
                    }
                    int to = o * in;
                    for (int i = 0; i < in; i++) {
                        da[ao + i] += g * wtl[to + i];
                    }
                }
                for (int i = 0; i < in; i++) {
                    if (a[ao + i] <= 0f) {
                        da[ao + i] = 0f;
                    }
                }
            }
        }
    }

    /** SGD with momentum (as torch.optim.SGD): v = mu v + g; w -= lr v. */
    public void step(float lr, float momentum) {
        for (int l = 0; l < layers; l++) {
            sgd(w[l], gw[l], mw[l], lr, momentum);
            sgd(b[l], gb[l], mb[l], lr, momentum);
        }
    }

    private static void sgd(float[] p, float[] g, float[] m, float lr, float mu) {
        for (int i = 0; i < p.length; i++) {
            m[i] = mu * m[i] + g[i];
            p[i] -= lr * m[i];
        }
    }

    /** A copy of all parameter values, flattened in parameter order. */
    public float[] flatValues() {
        float[] out = new float[(int) parameterCount()];
        int at = 0;
        for (int l = 0; l < layers; l++) {
            System.arraycopy(w[l], 0, out, at, w[l].length);
            at += w[l].length;
            System.arraycopy(b[l], 0, out, at, b[l].length);
            at += b[l].length;
        }
        return out;
    }

    /**
     * The whole training state as tensors (every layer's weights and biases, then their momentum
     * buffers), written from the arrays now: what an elastic group hands a joiner. Made once.
     *
     * @return the tensors, owned by this model
     */
    public List<Tensor> exportState() {
        if (state.isEmpty()) {
            for (float[][] arrays : new float[][][] {w, b, mw, mb}) {
                for (float[] a : arrays) {
                    state.add(Tensor.zeros(DType.FLOAT32, a.length));
                }
            }
        }
        int i = 0;
        for (float[][] arrays : new float[][][] {w, b, mw, mb}) {
            for (float[] a : arrays) {
                floats(state.get(i++)).put(a);
            }
        }
        return state;
    }

    /** Reads {@link #exportState()}'s tensors (overwritten by a state transfer) back into the arrays. */
    public void importState() {
        int i = 0;
        for (float[][] arrays : new float[][][] {w, b, mw, mb}) {
            for (float[] a : arrays) {
                floats(state.get(i++)).get(a);
            }
        }
    }

    /** Releases the parameter tensors. */
    @Override
    public void close() {
        for (Parameter p : parameters) {
            p.value().release();
            p.grad().release();
        }
        state.forEach(Tensor::release);
    }
}
