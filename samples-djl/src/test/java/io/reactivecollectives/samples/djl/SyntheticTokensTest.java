package io.reactivecollectives.samples.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SyntheticTokensTest {

    private final EncoderConfig config = EncoderConfig.TINY;

    @Test
    void aSampleDependsOnTheSeedAndItsIndexOnly() {
        SyntheticTokens data = SyntheticTokens.forConfig(42, config);
        try (NDManager manager = NDManager.newBaseManager("PyTorch");
             SyntheticTokens.Samples global = data.batch(SyntheticTokens.range(0, 8), manager);
             SyntheticTokens.Samples shard = data.batch(new long[] {5, 1, 3, 7}, manager)) {
            long[] globalTokens = global.data().singletonOrThrow().toLongArray();
            long[] globalLabels = global.labels().singletonOrThrow().toLongArray();
            long[] shardTokens = shard.data().singletonOrThrow().toLongArray();
            long[] shardLabels = shard.labels().singletonOrThrow().toLongArray();
            int seq = config.seq();
            long[] order = {5, 1, 3, 7};
            for (int row = 0; row < order.length; row++) {
                int g = (int) order[row];
                assertArrayEquals(Arrays.copyOfRange(globalTokens, g * seq, (g + 1) * seq),
                        Arrays.copyOfRange(shardTokens, row * seq, (row + 1) * seq), "sample " + g);
                assertEquals(globalLabels[g], shardLabels[row], "label of sample " + g);
            }
            assertEquals(new Shape(8, seq), global.data().singletonOrThrow().getShape());
            assertEquals(DataType.INT64, global.data().singletonOrThrow().getDataType());
            assertEquals(new Shape(8), global.labels().singletonOrThrow().getShape());
        }
        long[] again = new long[config.seq()];
        long[] once = new long[config.seq()];
        assertEquals(data.sample(3, once, 0), SyntheticTokens.forConfig(42, config).sample(3, again, 0));
        assertArrayEquals(once, again);
        long[] otherSeed = new long[config.seq()];
        SyntheticTokens.forConfig(43, config).sample(3, otherSeed, 0);
        assertFalse(Arrays.equals(once, otherSeed));
    }

    @Test
    void theLabelIsTheFullestBucket() {
        SyntheticTokens data = SyntheticTokens.forConfig(1, config);
        long[] tokens = new long[config.seq()];
        int[] labelCounts = new int[config.classes()];
        for (long i = 0; i < 400; i++) {
            int label = data.sample(i, tokens, 0);
            int[] counts = new int[config.classes()];
            for (long t : tokens) {
                assertTrue(t >= 0 && t < config.vocab(), "token " + t);
                counts[(int) (t % config.classes())]++;
            }
            for (int c = 0; c < config.classes(); c++) {
                assertTrue(counts[c] < counts[label] || (counts[c] == counts[label] && c >= label),
                        "sample " + i + " label " + label + " counts " + Arrays.toString(counts));
            }
            labelCounts[label]++;
        }
        for (int count : labelCounts) {
            assertTrue(count > 50, "classes are roughly balanced: " + Arrays.toString(labelCounts));
        }
    }

    @Test
    void matchesThePythonMirrorsGenerator() {
        // /usr/bin/python3 perf/scripts/ddp/torch_ddp_train.py --preset tiny --print-sample 0 1000
        SyntheticTokens data = SyntheticTokens.forConfig(42, config);
        long[] tokens = new long[config.seq()];
        assertEquals(1, data.sample(0, tokens, 0));
        assertArrayEquals(new long[] {18, 9, 53, 21, 61, 25, 28, 21, 7, 33, 21, 16, 53, 7, 53, 53}, tokens);
        assertEquals(1, data.sample(1000, tokens, 0));
        assertArrayEquals(new long[] {9, 35, 33, 45, 14, 18, 21, 44, 30, 13, 58, 39, 61, 21, 13, 2}, tokens);
    }
}
