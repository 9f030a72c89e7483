package io.reactivecollectives.djl;

import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Sampler;

import java.util.Arrays;
import java.util.Iterator;

/**
 * One rank's shard of a data set, with PyTorch's {@code DistributedSampler} semantics: every epoch
 * the indices {@code 0..size-1} are permuted with a seed all ranks share ({@code seed + epoch}), the
 * tail is padded by repeating the first indices (or, with {@code dropLast}, cut) so that the count
 * divides by the world size, and rank {@code r} takes every {@code world}-th index from {@code r}.
 * The shards of one epoch are disjoint (except for the padding) and together cover the data set;
 * every rank has the same number of samples, so every rank takes the same number of steps.
 *
 * <p>The permutation is the one {@code torch.randperm} draws from a CPU generator seeded with
 * {@code seed + epoch} (PyTorch's Mersenne Twister, reproduced here), so for the same data set
 * length, world size, seed and epoch every rank gets the indices PyTorch's
 * {@code DistributedSampler} gives it, in the same order: a DJL job and a PyTorch DDP job can be
 * compared batch for batch. As in PyTorch, only the low 32 bits of {@code seed + epoch} count.
 *
 * <p>As a DJL {@link Sampler.SubSampler} it plugs into a {@code RandomAccessDataset}
 * ({@code optSampler(new BatchSampler(sampler, batchSize))}); call {@link #setEpoch} before each
 * epoch, as with PyTorch's. Not thread-safe.
 */
public final class DistributedSampler implements Sampler.SubSampler {

    private final long size;
    private final int world;
    private final int rank;
    private final boolean shuffle;
    private final long seed;
    private final boolean dropLast;
    private final int numSamples;
    private long epoch;

    private DistributedSampler(Builder b) {
        this.size = b.size;
        this.world = b.world;
        this.rank = b.rank;
        this.shuffle = b.shuffle;
        this.seed = b.seed;
        this.dropLast = b.dropLast;
        // PyTorch: ceil((len - world) / world) when dropping a tail that does not divide, which is floor(len / world)
        long perRank = dropLast ? size / world : (size + world - 1) / world;
        if (perRank > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("DistributedSampler: " + perRank + " samples per rank do not fit an int");
        }
        this.numSamples = (int) perRank;
    }

    /**
     * A builder for rank {@code rank}'s shard of a data set of {@code size} samples split over
     * {@code world} ranks.
     *
     * @param size  the data set's length (at least 1)
     * @param world the number of ranks (at least 1)
     * @param rank  this rank, {@code 0 <= rank < world}
     * @return a new builder (shuffled, seed 0, tail padded)
     */
    public static Builder builder(long size, int world, int rank) {
        return new Builder(size, world, rank);
    }

    /**
     * Sets the epoch whose permutation {@link #indices()} and {@link #sample} return; every rank must
     * set the same epoch.
     *
     * @param epoch the epoch (0 for the first)
     */
    public void setEpoch(long epoch) {
        this.epoch = epoch;
    }

    /**
     * The epoch set last.
     *
     * @return the epoch
     */
    public long epoch() {
        return epoch;
    }

    /**
     * Samples per rank per epoch: {@code ceil(size / world)}, or {@code floor(size / world)} with
     * {@code dropLast}.
     *
     * @return the number of indices {@link #indices()} returns
     */
    public int numSamples() {
        return numSamples;
    }

    /**
     * Samples of all ranks per epoch, {@code numSamples() * world}.
     *
     * @return the padded (or cut) length of one epoch
     */
    public long totalSize() {
        return (long) numSamples * world;
    }

    /**
     * This rank's indices for the current epoch, in the order they are to be visited.
     *
     * @return a new array of {@link #numSamples()} indices
     */
    public long[] indices() {
        long[] mine = new long[numSamples];
        long[] all = permutation();
        for (int i = 0; i < numSamples; i++) {
            long pos = rank + (long) i * world; // < totalSize()
            // padding: the permuted list repeated from its start (PyTorch: indices += indices[:padding])
            mine[i] = all[(int) (pos % all.length)];
        }
        return mine;
    }

    private long[] permutation() {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("DistributedSampler: a data set of " + size + " samples is too large to permute in memory");
        }
        if (shuffle) {
            return TorchRandperm.permutation((int) size, seed + epoch);
        }
        long[] all = new long[(int) size];
        Arrays.setAll(all, i -> i);
        return all;
    }

    /**
     * This rank's indices of the current epoch as DJL's sub-sampler. The data set's length must be
     * the size this sampler was built for.
     *
     * @param dataset the data set being sampled
     * @return an iterator over {@link #indices()}
     * @throws IllegalArgumentException if the data set's length differs from the sampler's size
     */
    @Override
    public Iterator<Long> sample(RandomAccessDataset dataset) {
        if (dataset.size() != size) {
            throw new IllegalArgumentException("DistributedSampler of rank " + rank + ": built for " + size
                    + " samples, but the data set has " + dataset.size());
        }
        return Arrays.stream(indices()).iterator();
    }

    @Override
    public String toString() {
        return "DistributedSampler[rank " + rank + " of " + world + ", size " + size + ", " + numSamples
                + " per rank, epoch " + epoch + (shuffle ? ", shuffled with seed " + seed : ", in order")
                + (dropLast ? ", tail dropped" : ", tail padded") + "]";
    }

    /** Settings of a {@link DistributedSampler}. */
    public static final class Builder {
        private final long size;
        private final int world;
        private final int rank;
        private boolean shuffle = true;
        private long seed;
        private boolean dropLast;

        private Builder(long size, int world, int rank) {
            if (size < 1) {
                throw new IllegalArgumentException("DistributedSampler: the data set is empty (size " + size + ")");
            }
            if (world < 1 || rank < 0 || rank >= world) {
                throw new IllegalArgumentException("DistributedSampler: rank " + rank + " is not in a world of " + world);
            }
            this.size = size;
            this.world = world;
            this.rank = rank;
        }

        /**
         * Whether each epoch is permuted (default true); false visits the indices in order.
         *
         * @param shuffle whether to shuffle
         * @return this builder
         */
        public Builder shuffle(boolean shuffle) {
            this.shuffle = shuffle;
            return this;
        }

        /**
         * The seed of every epoch's permutation ({@code seed + epoch}); must be the same on every rank.
         *
         * @param seed the shared seed (default 0)
         * @return this builder
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Whether the tail that does not divide by the world size is dropped (default false: padded
         * with the epoch's first indices, as PyTorch does).
         *
         * @param dropLast whether to drop the tail
         * @return this builder
         * @throws IllegalArgumentException (from {@link #build()}) if dropping leaves no sample per rank
         */
        public Builder dropLast(boolean dropLast) {
            this.dropLast = dropLast;
            return this;
        }

        /**
         * The sampler.
         *
         * @return a new sampler at epoch 0
         * @throws IllegalArgumentException if {@code dropLast} leaves no sample per rank, or the data set
         *                                  is too large to permute in memory (over 2^31 - 9 samples)
         */
        public DistributedSampler build() {
            if (size > Integer.MAX_VALUE - 8) {   // before an epoch's arrays are asked for
                throw new IllegalArgumentException("DistributedSampler: a data set of " + size
                        + " samples is too large to permute in memory (at most " + (Integer.MAX_VALUE - 8) + ")");
            }
            if (dropLast && size < world) {
                throw new IllegalArgumentException("DistributedSampler: dropping the tail of " + size
                        + " samples over " + world + " ranks leaves none per rank");
            }
            return new DistributedSampler(this);
        }
    }
}
