package io.reactivecollectives.samples.train;

import java.util.SplittableRandom;

/**
 * A seeded synthetic classification task: inputs are standard normal vectors, and the label of an
 * input x is {@code argmax(T tanh(x) + c)} for a fixed random linear "teacher" (T, c) drawn from the
 * seed (uniform in +-1/sqrt(inputs), as torch initialises {@code nn.Linear}).
 * Sample {@code i} is the same whoever asks for it, so N ranks reading disjoint slices of a global
 * batch see exactly the samples one process reading the whole batch sees.
 */
public final class SyntheticTask {

    private final long seed;
    private final int inputs;
    private final int classes;
    private final float[] teacher;
    private final float[] teacherBias;

    public SyntheticTask(long seed, int inputs, int classes) {
        if (inputs < 1 || classes < 2) {
            throw new IllegalArgumentException("task needs >= 1 input and >= 2 classes, got " + inputs + ", " + classes);
        }
        this.seed = seed;
        this.inputs = inputs;
        this.classes = classes;
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.teacher = new float[classes * inputs];
        this.teacherBias = new float[classes];
        double bound = 1 / Math.sqrt(inputs); // as torch's nn.Linear initialises the benchmark's teacher
        for (int i = 0; i < teacher.length; i++) {
            teacher[i] = (float) ((2 * r.nextDouble() - 1) * bound);
        }
        for (int i = 0; i < classes; i++) {
            teacherBias[i] = (float) ((2 * r.nextDouble() - 1) * bound);
        }
    }

    public int inputs() {
        return inputs;
    }

    public int classes() {
        return classes;
    }

    /**
     * Fills row {@code row} of {@code x} (row-major, {@code inputs} wide) with sample {@code index}
     * and returns its label.
     */
    public int sample(long index, float[] x, int row) {
        SplittableRandom r = new SplittableRandom(seed * 1_000_003L + index);
        int base = row * inputs;
        float[] squashed = new float[inputs];
        for (int i = 0; i < inputs; i++) {
            x[base + i] = (float) gaussian(r);
            squashed[i] = (float) Math.tanh(x[base + i]);
        }
        int best = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int c = 0; c < classes; c++) {
            double s = teacherBias[c];
            for (int i = 0; i < inputs; i++) {
                s += teacher[c * inputs + i] * squashed[i];
            }
            if (s > bestScore) {
                bestScore = s;
                best = c;
            }
        }
        return best;
    }

    /** Fills a batch of {@code rows} samples starting at sample {@code first}. */
    public void batch(long first, int rows, float[] x, int[] labels) {
        for (int b = 0; b < rows; b++) {
            labels[b] = sample(first + b, x, b);
        }
    }

    private static double gaussian(SplittableRandom r) {
        // Box-Muller; SplittableRandom has no nextGaussian on Java 17
        double u = 1.0 - r.nextDouble();
        double v = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
