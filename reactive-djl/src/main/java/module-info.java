/**
 * Data-parallel training for DJL (Deep Java Library) over a {@code ProcessGroup}: DDP for DJL's
 * models. DJL's jar carries the automatic module name {@code ai.djl.api}; users bring DJL and an
 * engine (PyTorch's is the one tested).
 */
module io.reactivecollectives.djl {
    requires transitive io.reactivecollectives.core;
    requires transitive ai.djl.api;
    requires org.slf4j;

    exports io.reactivecollectives.djl;
}
