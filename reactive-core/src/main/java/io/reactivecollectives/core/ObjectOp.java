package io.reactivecollectives.core;

/** The object collectives, as their headers and errors name them. */
enum ObjectOp {
    ALL_GATHER("allGatherObject"),
    BROADCAST("broadcastObject"),
    GATHER("gatherObject"),
    SCATTER("scatterObject"),
    KEYED_ALL_REDUCE("allReduceMap");

    private final String displayName;

    ObjectOp(String displayName) {
        this.displayName = displayName;
    }

    String displayName() {
        return displayName;
    }

    boolean rooted() {
        return this == BROADCAST || this == GATHER || this == SCATTER;
    }
}
