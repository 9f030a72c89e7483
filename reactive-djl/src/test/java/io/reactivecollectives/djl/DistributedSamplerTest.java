package io.reactivecollectives.djl;

import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.BatchSampler;
import ai.djl.ndarray.NDManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PyTorch's DistributedSampler semantics: disjoint shards, padded or dropped tail, a shared per-epoch shuffle. */
class DistributedSamplerTest {

    private static long[][] shards(long size, int world, boolean shuffle, boolean dropLast, long epoch) {
        long[][] out = new long[world][];
        for (int r = 0; r < world; r++) {
            DistributedSampler s = DistributedSampler.builder(size, world, r).shuffle(shuffle).seed(7).dropLast(dropLast).build();
            s.setEpoch(epoch);
            out[r] = s.indices();
        }
        return out;
    }

    @ParameterizedTest(name = "{0} samples over {1} ranks")
    @CsvSource({"100, 4", "10, 4", "7, 3", "3, 5", "1, 2"})
    void paddedShardsCoverTheDataSetWithEqualCounts(long size, int world) {
        long[][] shards = shards(size, world, true, false, 0);
        int perRank = (int) ((size + world - 1) / world);
        Set<Long> seen = new HashSet<>();
        List<Long> all = new ArrayList<>();
        for (long[] s : shards) {
            assertEquals(perRank, s.length, "every rank gets ceil(size / world) samples");
            for (long i : s) {
                assertTrue(i >= 0 && i < size, "index in range: " + i);
                seen.add(i);
                all.add(i);
            }
        }
        assertEquals(size, seen.size(), "every sample is visited");
        assertEquals((long) perRank * world - size, all.size() - seen.size(), "only the padding repeats");
    }

    @Test
    void withoutShufflingRankRTakesEveryWorldthIndexFromR() {
        long[][] shards = shards(10, 4, false, false, 0);
        assertArrayEquals(new long[] {0, 4, 8}, shards[0]);
        assertArrayEquals(new long[] {1, 5, 9}, shards[1]);
        assertArrayEquals(new long[] {2, 6, 0}, shards[2], "padded from the start, as PyTorch");
        assertArrayEquals(new long[] {3, 7, 1}, shards[3]);
    }

    @Test
    void droppingTheTailLeavesDisjointEqualShards() {
        long[][] shards = shards(10, 4, true, true, 3);
        Set<Long> seen = new HashSet<>();
        for (long[] s : shards) {
            assertEquals(2, s.length, "floor(10 / 4)");
            for (long i : s) {
                assertTrue(seen.add(i), "no sample twice: " + i);
            }
        }
        assertEquals(8, seen.size());
    }

    @Test
    void everyRankShufflesAlikeAndEachEpochDifferently() {
        long[][] e0 = shards(1000, 2, true, false, 0);
        long[][] e0again = shards(1000, 2, true, false, 0);
        long[][] e1 = shards(1000, 2, true, false, 1);
        assertArrayEquals(e0[0], e0again[0], "same seed and epoch: same order on every run");
        assertFalse(Arrays.equals(e0[0], e1[0]), "a new epoch reshuffles");
        Set<Long> r0 = new HashSet<>();
        for (long i : e1[0]) {
            r0.add(i);
        }
        for (long i : e1[1]) {
            assertFalse(r0.contains(i), "shards of one epoch are disjoint: " + i);
        }
    }

    @Test
    void badArgumentsAreRefusedSayingWhy() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DistributedSampler.builder(0, 2, 0))
                .getMessage().contains("empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DistributedSampler.builder(10, 2, 2))
                .getMessage().contains("rank 2 is not in a world of 2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DistributedSampler.builder(3, 4, 0).dropLast(true).build())
                .getMessage().contains("leaves none"));
    }

    @Test
    void plugsIntoADjlDataSetAsItsSubSampler() {
        try (NDManager m = NDManager.newBaseManager()) {
            float[] x = new float[10];
            for (int i = 0; i < x.length; i++) {
                x[i] = i;
            }
            DistributedSampler sampler = DistributedSampler.builder(10, 2, 1).shuffle(false).build();
            ArrayDataset data = new ArrayDataset.Builder().setData(m.create(x)).optLabels(m.create(x))
                    .setSampling(new BatchSampler(sampler, 2)).build();
            Iterator<List<Long>> batches = new BatchSampler(sampler, 2).sample(data);
            List<Long> seen = new ArrayList<>();
            batches.forEachRemaining(seen::addAll);
            assertEquals(List.of(1L, 3L, 5L, 7L, 9L), seen);
            DistributedSampler wrong = DistributedSampler.builder(11, 2, 0).build();
            assertThrows(IllegalArgumentException.class, () -> wrong.sample(data));
        }
    }

    /**
     * PyTorch's own shards (torch 1.13's {@code DistributedSampler}, written by
     * {@code perf/scripts/ddp/torch_sampler_reference.py}): the same indices in the same order for
     * every rank, epoch, seed (negative and above 32 bits too), padded or dropped tail, and lengths
     * around the generator's 624-word state.
     */
    @Test
    void everyRankGetsTheShardPyTorchsSamplerGivesIt() throws IOException {
        int cases = 0;
        try (InputStream in = DistributedSamplerTest.class.getResourceAsStream("torch-distributed-sampler.csv");
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(",", -1);
                DistributedSampler s = DistributedSampler.builder(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]))
                        .seed(Long.parseLong(f[3])).shuffle(Boolean.parseBoolean(f[5])).dropLast(Boolean.parseBoolean(f[6])).build();
                s.setEpoch(Long.parseLong(f[4]));
                long[] torch = Arrays.stream(f[7].split(" ")).mapToLong(Long::parseLong).toArray();
                String which = line.substring(0, line.lastIndexOf(','));
                assertArrayEquals(torch, s.indices(), () -> "PyTorch's shard for " + which);
                cases++;
            }
        }
        assertEquals(87, cases, "every case of the reference file was compared");
    }

    @Test
    void theGeneratorIsPyTorchsMersenneTwister() {
        // torch.Generator().manual_seed(0); torch.randperm(10, generator=g), and the same for seed 5 and length 7
        assertArrayEquals(new long[] {4, 1, 7, 5, 3, 9, 0, 8, 6, 2}, TorchRandperm.permutation(10, 0));
        assertArrayEquals(new long[] {1, 0, 4, 2, 6, 5, 3}, TorchRandperm.permutation(7, 5));
        assertArrayEquals(new long[0], TorchRandperm.permutation(0, 1));
    }
}
