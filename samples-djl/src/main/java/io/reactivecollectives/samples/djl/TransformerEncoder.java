package io.reactivecollectives.samples.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.nn.ParameterList;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.LayerNorm;
import ai.djl.training.ParameterStore;
import ai.djl.util.Pair;
import ai.djl.util.PairList;
import io.reactivecollectives.djl.StagedBlock;
import java.util.ArrayList;
import java.util.List;

/**
 * A pre-LayerNorm transformer encoder classifier: {@code [batch, seq]} integer tokens to
 * {@code [batch, classes]} logits.
 *
 * <p>Tokens go through a {@link TokenEmbedding} (token plus learned position), then
 * {@link EncoderConfig#layers()} {@link EncoderLayer}s ({@code x + Attn(LN(x))} then
 * {@code x + FFN(LN(x))}), a final LayerNorm, the mean over the sequence, and a linear head.
 * There is no dropout and no mask, so the forward pass is a deterministic function of the
 * parameters and the batch.
 *
 * <p>It normalises with {@link LayerNorm}, not batch normalisation. DJL's own
 * {@code ai.djl.nn.transformer.TransformerEncoderBlock} uses {@code BatchNorm}, whose running
 * statistics and per-batch moments depend on which samples share a batch: a data-parallel
 * rank training on its shard would then not compute what one process computes on the global
 * batch, and the running statistics are state no gradient all-reduce keeps in step. LayerNorm
 * normalises each token on its own, so averaging the ranks' gradients is exactly the gradient of
 * the global batch.
 *
 * <p>Its stages ({@link StagedBlock}, for a backward pass by stages that overlaps the gradients'
 * communication): the embedding, each layer, then the final norm, pooling and head.
 *
 * <p>The PyTorch mirror {@code perf/scripts/ddp/torch_ddp_train.py} builds the same structure
 * from {@code torch.nn} modules with the same parameter count.
 */
public final class TransformerEncoder extends AbstractBlock implements StagedBlock {

    private final EncoderConfig config;
    private final TokenEmbedding embedding;
    private final List<EncoderLayer> layers = new ArrayList<>();
    private final LayerNorm finalNorm;
    private final Linear head;

    /**
     * Builds the (uninitialised) model.
     *
     * @param config the model dimensions
     */
    public TransformerEncoder(EncoderConfig config) {
        this.config = config;
        embedding = addChildBlock("embedding", new TokenEmbedding(config));
        for (int i = 0; i < config.layers(); i++) {
            layers.add(addChildBlock("layer" + i, new EncoderLayer(config)));
        }
        finalNorm = addChildBlock("finalNorm", EncoderLayer.layerNorm());
        head = addChildBlock("head", SelfAttention.linear(config.classes()));
    }

    /**
     * The dimensions this model was built with.
     *
     * @return the configuration
     */
    public EncoderConfig config() {
        return config;
    }

    /**
     * The input shape of a batch, for {@code Trainer.initialize}.
     *
     * @param batch the batch size
     * @return {@code [batch, seq]}
     */
    public Shape inputShape(int batch) {
        return new Shape(batch, config.seq());
    }

    /**
     * Counts the scalar parameters of an initialised block (every parameter's element count,
     * summed over the whole block tree).
     *
     * @param block an initialised block
     * @return the number of parameters
     * @throws IllegalStateException if a parameter has no shape yet
     */
    public static long countParameters(Block block) {
        long total = 0;
        for (Pair<String, Parameter> p : block.getParameters()) {
            Shape shape = p.getValue().getShape();
            if (shape == null) {
                throw new IllegalStateException("parameter " + p.getKey() + " has no shape: initialise first");
            }
            total += shape.size();
        }
        return total;
    }

    @Override
    protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training,
                                     PairList<String, Object> params) {
        NDList x = inputs;
        for (int stage = 0; stage < stageCount(); stage++) {
            x = forwardStage(stage, store, x, training);
        }
        return x;
    }

    @Override
    public int stageCount() {
        return layers.size() + 2;
    }

    @Override
    public NDList forwardStage(int stage, ParameterStore store, NDList inputs, boolean training) {
        if (stage == 0) {
            return embedding.forward(store, inputs, training);
        }
        if (stage <= layers.size()) {
            return layers.get(stage - 1).forward(store, inputs, training);
        }
        NDArray pooled = finalNorm.forward(store, inputs, training).singletonOrThrow().mean(new int[] {1});
        return head.forward(store, new NDList(pooled), training);
    }

    @Override
    public ParameterList stageParameters(int stage) {
        if (stage == 0) {
            return embedding.getParameters();
        }
        if (stage <= layers.size()) {
            return layers.get(stage - 1).getParameters();
        }
        ParameterList last = new ParameterList();
        finalNorm.getParameters().forEach(p -> last.add(p.getKey(), p.getValue()));
        head.getParameters().forEach(p -> last.add(p.getKey(), p.getValue()));
        return last;
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... inputShapes) {
        embedding.initialize(manager, dataType, inputShapes);
        Shape[] hidden = embedding.getOutputShapes(inputShapes);
        for (EncoderLayer layer : layers) {
            layer.initialize(manager, dataType, hidden);
        }
        finalNorm.initialize(manager, dataType, hidden);
        head.initialize(manager, dataType, new Shape(hidden[0].get(0), config.dModel()));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        return new Shape[] {new Shape(inputShapes[0].get(0), config.classes())};
    }
}
