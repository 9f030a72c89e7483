package io.reactivecollectives.samples.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/**
 * Multi-head self-attention written out: {@code q, k, v, o} linear projections with bias and
 * {@code softmax(Q K^T / sqrt(d_head)) V} per head, no dropout, no mask. Input and output are
 * {@code [batch, seq, dModel]}.
 */
public final class SelfAttention extends AbstractBlock {

    private final int heads;
    private final int headDim;
    private final Linear query;
    private final Linear key;
    private final Linear value;
    private final Linear out;

    /**
     * Creates the four projections.
     *
     * @param config the model dimensions
     */
    public SelfAttention(EncoderConfig config) {
        this.heads = config.heads();
        this.headDim = config.headDim();
        query = addChildBlock("query", linear(config.dModel()));
        key = addChildBlock("key", linear(config.dModel()));
        value = addChildBlock("value", linear(config.dModel()));
        out = addChildBlock("out", linear(config.dModel()));
    }

    static Linear linear(int units) {
        return Linear.builder().setUnits(units).optBias(true).build();
    }

    @Override
    protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training,
                                     PairList<String, Object> params) {
        NDArray x = inputs.singletonOrThrow();
        long batch = x.getShape().get(0);
        long seq = x.getShape().get(1);
        NDArray q = split(query.forward(store, inputs, training, params).singletonOrThrow(), batch, seq);
        NDArray k = split(key.forward(store, inputs, training, params).singletonOrThrow(), batch, seq);
        NDArray v = split(value.forward(store, inputs, training, params).singletonOrThrow(), batch, seq);
        // not div(Number): DJL's PyTorch engine wraps a Number in a tensor over a direct buffer
        // (from_blob) and closes it right after the op, while autograd keeps that tensor for the
        // backward pass; once the buffer is collected and its memory reused, the gradients of the
        // scores (so of q, k and everything below them) are garbage, NaN at times. This scalar
        // lives in the input's manager, so until the batch's arrays are closed, after backward.
        NDArray sqrtHeadDim = x.getManager().create((float) Math.sqrt(headDim));
        NDArray scores = q.matMul(k.transpose(0, 1, 3, 2)).div(sqrtHeadDim);
        NDArray context = scores.softmax(-1).matMul(v) // [batch, heads, seq, headDim]
                .transpose(0, 2, 1, 3).reshape(batch, seq, (long) heads * headDim);
        return out.forward(store, new NDList(context), training, params);
    }

    /** {@code [batch, seq, dModel]} to {@code [batch, heads, seq, headDim]}. */
    private NDArray split(NDArray projected, long batch, long seq) {
        return projected.reshape(batch, seq, heads, headDim).transpose(0, 2, 1, 3);
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... inputShapes) {
        for (Linear child : new Linear[] {query, key, value, out}) {
            child.initialize(manager, dataType, inputShapes);
        }
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        return new Shape[] {inputShapes[0]};
    }
}
