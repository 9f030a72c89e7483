package io.reactivecollectives.djl;

import ai.djl.ndarray.NDList;
import ai.djl.nn.Block;
import ai.djl.nn.ParameterList;
import ai.djl.nn.SequentialBlock;
import ai.djl.training.ParameterStore;

/**
 * A block whose forward pass is a sequence of stages, each taking the previous stage's outputs, so
 * that {@link DistributedTrainer} can run the backward pass stage by stage, last stage first, and
 * start the buckets of a stage's gradients while the stages before it are still being
 * differentiated (PyTorch DDP overlaps the same way, with a hook per parameter that DJL does not
 * have). The gradients are the same as one backward pass's: each stage's backward pass starts from
 * the gradient the later stages left on its outputs.
 *
 * <p>A {@link SequentialBlock} is staged by its children without implementing this
 * ({@link #of(Block)}); a model of another shape implements it, as {@code samples-djl}'s
 * transformer encoder does (the embedding, each layer, then the norm, pooling and head).
 */
public interface StagedBlock {

    /** {@return how many stages the forward pass has, at least one} */
    int stageCount();

    /**
     * Runs stage {@code stage} in training mode.
     *
     * @param stage    the stage, from 0
     * @param store    the trainer's parameter store
     * @param inputs   the batch's inputs for stage 0, else the previous stage's outputs
     * @param training whether in training mode
     * @return the stage's outputs (the last stage's are the predictions)
     */
    NDList forwardStage(int stage, ParameterStore store, NDList inputs, boolean training);

    /**
     * The parameters stage {@code stage} uses. Every trainable parameter of the block belongs to
     * exactly one stage.
     *
     * @param stage the stage
     * @return its parameters
     */
    ParameterList stageParameters(int stage);

    /**
     * The stages of {@code block}: itself if it is a {@code StagedBlock}, its children if it is a
     * {@link SequentialBlock}, else null (one backward pass). Also null for a {@code SequentialBlock}
     * whose children share a parameter (a layer added twice, tied weights): such a parameter's
     * gradient is final only once every stage that uses it is differentiated, so it trains in one
     * backward pass.
     *
     * @param block a model's block
     * @return its stages, or null
     */
    static StagedBlock of(Block block) {
        if (block instanceof StagedBlock staged) {
            return staged;
        }
        if (block instanceof SequentialBlock sequential && !sequential.getChildren().isEmpty()) {
            java.util.List<Block> children = sequential.getChildren().values();
            java.util.Set<String> ids = new java.util.HashSet<>();
            for (Block child : children) {
                java.util.Set<String> own = new java.util.HashSet<>();
                for (var p : child.getParameters()) {
                    own.add(p.getValue().getId());
                }
                for (String id : own) {
                    if (!ids.add(id)) {
                        return null;   // shared by two children
                    }
                }
            }
            return new StagedBlock() {
                @Override
                public int stageCount() {
                    return children.size();
                }

                @Override
                public NDList forwardStage(int stage, ParameterStore store, NDList inputs, boolean training) {
                    return children.get(stage).forward(store, inputs, training);
                }

                @Override
                public ParameterList stageParameters(int stage) {
                    return children.get(stage).getParameters();
                }
            };
        }
        return null;
    }
}
