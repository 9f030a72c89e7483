package io.reactivecollectives.samples.train;

import io.reactivecollectives.core.GenerationEvent;
import io.reactivecollectives.transport.ElasticGroup;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What an elastic main job prints (the MLP's and the DJL encoder's): each change of generation as
 * it happens, and at the end the loss, the generations, whether every step was applied once and
 * whether the ranks agree.
 */
public final class ElasticLog {

    private final PrintStream out;
    private final List<GenerationEvent> changes = new ArrayList<>();

    private ElasticLog(PrintStream out) {
        this.out = out;
    }

    /**
     * Follows {@code elastic}'s generations: each change is printed once, by the first member of the
     * new generation, with the time it was seen (for the kill-to-recovery figures).
     *
     * @param elastic the group
     * @param out     where to print
     * @return the log
     */
    public static ElasticLog follow(ElasticGroup elastic, PrintStream out) {
        ElasticLog log = new ElasticLog(out);
        elastic.generations().subscribe(e -> {
            synchronized (log.changes) {
                log.changes.add(e);
            }
            if (e.reason() != GenerationEvent.Reason.START && e.members()[0] == elastic.identity()) {
                out.printf(Locale.ROOT, "generation %s at %d ms%n", e.summary(), System.currentTimeMillis());
            }
        }, failed -> { });   // a change that failed reaches the training loop through recover(), which reports it
        return log;
    }

    /**
     * The end of the job, on rank 0: the mean loss of the last steps, this process's ms/step, the
     * generations it saw, whether every step has a recorded loss (a step skipped, or a joiner's
     * history lost, leaves a zero, which a cross-entropy never is) and whether the ranks agree.
     *
     * @param losses    every step's loss (handed to joiners)
     * @param msPerStep this process's wall time per step it took
     * @param ownSteps  the steps this process took
     * @param size      the group's size at the end
     * @param same      whether every rank holds identical parameters
     */
    public void summary(double[] losses, double msPerStep, long ownSteps, int size, boolean same) {
        int steps = losses.length;
        int k = Math.min(100, steps);
        double mean = 0;
        for (int i = steps - k; i < steps; i++) {
            mean += losses[i] / k;
        }
        out.printf(Locale.ROOT, "loss (mean of the last %d steps) %.4f | %.3f ms/step over this process's %d "
                + "steps, start-up, joins and recoveries included%n", k, mean, msPerStep, ownSteps);
        synchronized (changes) {
            out.println("generations: " + changes.stream().map(GenerationEvent::summary).collect(Collectors.joining(", ")));
        }
        long missing = Arrays.stream(losses).filter(l -> l == 0.0).count();
        out.println("steps: " + steps + " of " + steps + (missing == 0 ? ", each applied once"
                : ", " + missing + " WITHOUT A RECORDED LOSS"));
        out.println("parameters identical on all " + size + " ranks: " + (same ? "yes" : "NO"));
    }
}
