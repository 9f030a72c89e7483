package io.reactivecollectives.cuda;

/**
 * Told of every completed stage of a {@link HostStagedProcessGroup}'s chunk pipeline (for tracing,
 * metrics and benchmarks). Called on the thread that completed the stage (a CUDA scheduler thread
 * or a transport event loop): it must be quick and must not block.
 */
@FunctionalInterface
public interface StageListener {

    /** A listener that ignores everything. */
    StageListener NONE = e -> { };

    /**
     * Called once per completed stage.
     *
     * @param event the stage, its chunk and its timing
     */
    void onStage(StageEvent event);
}
