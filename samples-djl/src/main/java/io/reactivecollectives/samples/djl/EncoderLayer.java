package io.reactivecollectives.samples.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Activation;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.LayerNorm;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/**
 * One pre-LayerNorm encoder layer: {@code x = x + Attn(LN(x)); x = x + FFN(LN(x))}, with
 * {@code FFN = Linear(dModel, ffn) -> GELU -> Linear(ffn, dModel)}.
 *
 * <p>GELU is DJL's {@link Activation#gelu(NDArray)}, libtorch's {@code gelu} with its default
 * {@code approximate="none"}: the exact erf form, as PyTorch's {@code nn.GELU()}.
 */
public final class EncoderLayer extends AbstractBlock {

    private final LayerNorm attentionNorm;
    private final SelfAttention attention;
    private final LayerNorm feedForwardNorm;
    private final Linear expand;
    private final Linear contract;

    /**
     * Creates the layer's blocks.
     *
     * @param config the model dimensions
     */
    public EncoderLayer(EncoderConfig config) {
        attentionNorm = addChildBlock("attentionNorm", layerNorm());
        attention = addChildBlock("attention", new SelfAttention(config));
        feedForwardNorm = addChildBlock("feedForwardNorm", layerNorm());
        expand = addChildBlock("expand", SelfAttention.linear(config.ffn()));
        contract = addChildBlock("contract", SelfAttention.linear(config.dModel()));
    }

    /**
     * A LayerNorm over the last axis of {@code [batch, seq, dModel]} (epsilon 1e-5, with scale
     * and shift), as PyTorch's {@code nn.LayerNorm(dModel)}. The axis must be given: DJL's
     * default normalises over every axis but the batch one, which would be {@code [seq, dModel]}.
     *
     * @return the block
     */
    static LayerNorm layerNorm() {
        return LayerNorm.builder().axis(2).optEpsilon(1e-5f).build();
    }

    @Override
    protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training,
                                     PairList<String, Object> params) {
        NDArray x = inputs.singletonOrThrow();
        NDList normed = attentionNorm.forward(store, inputs, training, params);
        x = x.add(attention.forward(store, normed, training, params).singletonOrThrow());
        normed = feedForwardNorm.forward(store, new NDList(x), training, params);
        NDArray hidden = Activation.gelu(expand.forward(store, normed, training, params).singletonOrThrow());
        return new NDList(x.add(contract.forward(store, new NDList(hidden), training, params).singletonOrThrow()));
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... inputShapes) {
        attentionNorm.initialize(manager, dataType, inputShapes);
        attention.initialize(manager, dataType, inputShapes);
        feedForwardNorm.initialize(manager, dataType, inputShapes);
        expand.initialize(manager, dataType, inputShapes);
        contract.initialize(manager, dataType, expand.getOutputShapes(inputShapes));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        return new Shape[] {inputShapes[0]};
    }
}
