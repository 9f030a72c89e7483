package io.reactivecollectives.samples.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Embedding;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/**
 * Token embedding plus a learned positional embedding: {@code [batch, seq]} integer tokens to
 * {@code [batch, seq, dModel]} floats.
 *
 * <p>The token lookup is libtorch's {@code embedding} (through DJL's
 * {@link Embedding#embedding(NDArray, NDArray, SparseFormat)}, dense gradient), the very
 * operator behind PyTorch's {@code nn.Embedding}; the positional table {@code [seq, dModel]} is
 * added by broadcasting, like {@code x + pos.weight} in the mirror.
 */
public final class TokenEmbedding extends AbstractBlock {

    private final int seq;
    private final int dModel;
    private final Parameter tokens;
    private final Parameter positions;

    /**
     * Creates the two tables.
     *
     * @param config the model dimensions
     */
    public TokenEmbedding(EncoderConfig config) {
        this.seq = config.seq();
        this.dModel = config.dModel();
        tokens = addParameter(Parameter.builder().setName("token")
                .setType(Parameter.Type.WEIGHT).optShape(new Shape(config.vocab(), dModel)).build());
        positions = addParameter(Parameter.builder().setName("position")
                .setType(Parameter.Type.WEIGHT).optShape(new Shape(seq, dModel)).build());
    }

    /**
     * Whether {@code parameterName} (as a model's {@code getParameters()} names it) is this block's
     * token table, the parameter a batch touches only some rows of.
     *
     * @param parameterName the parameter's name
     * @return true for the token table
     */
    public static boolean isTokenTable(String parameterName) {
        return parameterName.equals("token") || parameterName.endsWith("_token");
    }

    @Override
    protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training,
                                     PairList<String, Object> params) {
        NDArray ids = inputs.singletonOrThrow();
        if (ids.getDataType() != DataType.INT64) {
            ids = ids.toType(DataType.INT64, false);
        }
        NDArray table = store.getValue(tokens, ids.getDevice(), training);
        NDArray pos = store.getValue(positions, ids.getDevice(), training);
        NDArray x = Embedding.embedding(ids, table, SparseFormat.DENSE).singletonOrThrow();
        return new NDList(x.add(pos));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        Shape in = inputShapes[0];
        if (in.dimension() != 2 || in.get(1) != seq) {
            throw new IllegalArgumentException("expected [batch, " + seq + "] tokens, got " + in);
        }
        return new Shape[] {new Shape(in.get(0), in.get(1), dModel)};
    }
}
