package io.reactivecollectives.core;

/**
 * A process asked to join an elastic group whose job had already ended: its members called the
 * transport's {@code ElasticGroup.finish()} before they admitted it. Nothing is left to do; a program ends as it
 * would after its last step (the main job exits 0).
 */
public final class JobEndedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param group    the group's id (without its generation suffix)
     * @param identity the identity this process asked for
     */
    public JobEndedException(String group, int identity) {
        super("join of group '" + group + "' as identity " + identity + ": the job ended before this process was"
                + " admitted (its members finished); nothing to do");
    }
}
