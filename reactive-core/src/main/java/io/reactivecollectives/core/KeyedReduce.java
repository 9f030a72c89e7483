package io.reactivecollectives.core;

import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Keyed-map all-reduce. Round 1 (an object all-gather): every rank's entry count, its bytes per
 * owner rank, and a {@link KeySketch} of its keys; from these, every rank alike checks the limit
 * and picks the algorithm ({@link KeyedAlgorithm#AUTO}: partitioned when the estimated union of
 * keys is under {@code (N-1)/N} of the entries). Gather-merge: one object all-gather of every
 * rank's entries, each rank merging them in rank order. Partitioned: an {@code allToAllSingle}
 * sends each entry to its key's owner, each owner combines its keys in rank order, and an object
 * all-gather gives every rank every owner's result. Either way every rank ends with the same map.
 * A rank's bad argument, or an owner whose combining fails, is announced in the next round's
 * header, so every rank fails alike instead of waiting.
 */
final class KeyedReduce {

    private KeyedReduce() {
    }

    static <R> Mono<R> run(ObjectCall call, KeyedFormat<R> format) {
        int n = call.size;
        Codec<Object> runs = new RunCodec("keyed:" + format.descriptor());
        return Mono.defer(() -> {
            KeySketch sketch = new KeySketch();
            Supplier<byte[][]> local = attempt(() -> format.partition(n, sketch));
            Supplier<byte[]> summary = attempt(() -> Summary.encode(format.entries(), call.options, local.get(), sketch));
            return ObjectAllGather.run(call, (Object) summary, runs).flatMap(all -> {
                List<Summary> s = new ArrayList<>(n);
                for (int q = 0; q < n; q++) {
                    s.add(Summary.decode(call, (byte[]) all.get(q), q, n));
                }
                long bytes = 0;
                long entries = 0;
                long limit = Long.MAX_VALUE;
                KeySketch union = new KeySketch();
                for (int q = 0; q < n; q++) {
                    Summary x = s.get(q);
                    if (x.asked() != s.get(0).asked()) {   // against rank 0's, so that every rank names the same pair
                        throw new CollectiveMismatchException(call.name(), call.rank, call.sequence, q, "keyed algorithm "
                                + s.get(0).asked() + " on rank 0, " + x.asked() + " on rank " + q + " (ObjectOptions.withKeyed)");
                    }
                    limit = Math.min(limit, x.maxBytes());
                    if (x.bytes() > Integer.MAX_VALUE - 8) {
                        throw call.error(q, "rank " + q + "'s entries take " + x.bytes()
                                + " bytes, over the 2 GiB one rank's entries may take in one call");
                    }
                    bytes += x.bytes();
                    entries += x.entries();
                    union.merge(x.sketch());
                }
                if (bytes > limit) {
                    throw call.error(CollectiveException.NO_PEER, call.name() + " moves up to " + bytes
                            + " bytes of entries, over the limit of " + limit + " (ObjectOptions.maxBytes, the smallest any rank set)");
                }
                KeyedAlgorithm a = choose(s.get(0).asked(), n, entries, union.estimate());
                if (a == KeyedAlgorithm.PARTITIONED && largestColumn(s) > Integer.MAX_VALUE - 8) {
                    a = KeyedAlgorithm.GATHER_MERGE;   // an owner's share would not fit one buffer
                }
                return a == KeyedAlgorithm.PARTITIONED ? partitioned(call, format, runs, local.get(), s)
                        : gatherMerge(call, format, runs, local.get());
            });
        });
    }

    static KeyedAlgorithm choose(KeyedAlgorithm asked, int n, long entries, double union) {
        if (asked != KeyedAlgorithm.AUTO) {
            return asked;
        }
        return n > 1 && union < (double) entries * (n - 1) / n ? KeyedAlgorithm.PARTITIONED : KeyedAlgorithm.GATHER_MERGE;
    }

    private static <R> Mono<R> gatherMerge(ObjectCall call, KeyedFormat<R> format, Codec<Object> runs, byte[][] parts) {
        byte[] whole = format.whole(parts);
        return ObjectAllGather.run(call, (Object) whole, runs)
                .flatMap(all -> ObjectCoding.onCpu(total(all), () -> result(call, format, all, false)));
    }

    private static <R> Mono<R> partitioned(ObjectCall call, KeyedFormat<R> format, Codec<Object> runs, byte[][] parts,
                                           List<Summary> s) {
        int n = call.size;
        int me = call.rank;
        long[] inSplits = new long[n];
        long[] outSplits = new long[n];
        for (int q = 0; q < n; q++) {
            inSplits[q] = parts[q].length;
            outSplits[q] = s.get(q).partBytes()[me];
        }
        return Mono.usingWhen(
                Mono.fromCallable(() -> {
                    Tensor in = Tensor.empty(DType.UINT8, sum(inSplits));
                    Tensor out = Tensor.empty(DType.UINT8, sum(outSplits));
                    int at = 0;
                    for (byte[] p : parts) {
                        in.buffer().setBytes(at, p);
                        at += p.length;
                    }
                    return new Tensor[]{in, out};
                }),
                t -> call.group.allToAllSingle(t[1], t[0], outSplits, inSplits, call.options.collective()).map(out -> {
                    List<byte[]> received = new ArrayList<>(n);
                    int at = 0;
                    for (int q = 0; q < n; q++) {
                        byte[] b = new byte[(int) outSplits[q]];
                        out.buffer().getBytes(at, b);
                        at += b.length;
                        received.add(b);
                    }
                    return received;
                }),
                t -> Mono.fromRunnable(() -> {
                    t[0].release();
                    t[1].release();
                }))
                .flatMap(received -> ObjectCoding.onCpu(total(received), () -> attempt(() -> {
                    try {
                        return format.reduce(received);
                    } catch (KeyedFormat.BadRun e) {
                        throw new IllegalStateException(e.combining ? "combining the entries from rank " + e.run
                                + " with those of the ranks before: " + e.getMessage()
                                : "reading the entries from rank " + e.run + " failed: " + e.getMessage(), e);
                    }
                })))
                .flatMap(reduced -> ObjectAllGather.run(call, (Object) reduced, runs))
                .flatMap(all -> ObjectCoding.onCpu(total(all), () -> result(call, format, all, true)));
    }

    private static <R> R result(ObjectCall call, KeyedFormat<R> format, List<Object> all, boolean disjoint) {
        List<byte[]> bytes = new ArrayList<>(all.size());
        for (Object o : all) {
            bytes.add((byte[]) o);
        }
        try {
            return format.result(bytes, disjoint);
        } catch (KeyedFormat.BadRun e) {
            throw call.error(e.run, e.combining ? "combining the entries from rank " + e.run + " with those of the ranks before: "
                    + e.getMessage() : "reading the entries " + (disjoint ? "that rank " + e.run + " owns" : "from rank " + e.run)
                    + " failed: " + e.getMessage(), e.getCause());
        }
    }

    /** {@code work}'s result, or a supplier that throws its exception when the run codec encodes it (announced to every rank). */
    private static <T> Supplier<T> attempt(Supplier<T> work) {
        try {
            T b = work.get();
            return () -> b;
        } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
            return () -> {   // an Error too (a class missing on this node): announced, not left to the peers' timeout
                throw e instanceof RuntimeException r ? r : new IllegalStateException(e.toString(), e);
            };
        }
    }

    private static long total(List<?> parts) {
        long t = 0;
        for (Object o : parts) {
            t += ((byte[]) o).length;
        }
        return t;
    }

    /** The most bytes any owner would receive in the partitioned algorithm's all-to-all. */
    private static long largestColumn(List<Summary> s) {
        long most = 0;
        for (int owner = 0; owner < s.size(); owner++) {
            long col = 0;
            for (Summary x : s) {
                col += x.partBytes()[owner];
            }
            most = Math.max(most, col);
        }
        return most;
    }

    private static long sum(long[] xs) {
        long t = 0;
        for (long x : xs) {
            t += x;
        }
        return t;
    }

    /**
     * A rank's first-round announcement: its entries, its limit and algorithm
     * ({@link ObjectOptions#maxBytes}, {@link ObjectOptions#keyed}: ranks may set other limits, the
     * smallest holds; they must ask for one algorithm), its bytes per owner, its keys' sketch.
     */
    record Summary(long entries, long maxBytes, KeyedAlgorithm asked, long bytes, long[] partBytes, KeySketch sketch) {

        private static final KeyedAlgorithm[] ALGORITHMS = KeyedAlgorithm.values();
        private static final int FIXED = 24;

        static byte[] encode(long entries, ObjectOptions options, byte[][] parts, KeySketch sketch) {
            ByteBuffer b = ByteBuffer.allocate(FIXED + 8 * parts.length + KeySketch.REGISTERS);
            b.putLong(entries);
            b.putLong(options.maxBytes());
            b.putLong(options.keyed().ordinal());
            for (byte[] p : parts) {
                b.putLong(p.length);
            }
            b.put(sketch.registers());
            return b.array();
        }

        static Summary decode(ObjectCall call, byte[] bytes, int from, int n) {
            if (bytes.length != FIXED + 8 * n + KeySketch.REGISTERS) {
                throw call.error(from, "rank " + from + " announced its entries in " + bytes.length + " bytes, not "
                        + (FIXED + 8 * n + KeySketch.REGISTERS));
            }
            ByteBuffer b = ByteBuffer.wrap(bytes);
            long entries = b.getLong();
            long maxBytes = b.getLong();
            long asked = b.getLong();
            if (asked < 0 || asked >= ALGORITHMS.length) {
                throw call.error(from, "rank " + from + " announced keyed algorithm " + asked);
            }
            long[] part = new long[n];
            long sum = 0;
            for (int q = 0; q < n; q++) {
                part[q] = b.getLong();
                if (part[q] < 0 || part[q] > Integer.MAX_VALUE - 8) {
                    throw call.error(from, "rank " + from + " announced " + part[q] + " bytes for rank " + q);
                }
                sum += part[q];
            }
            return new Summary(entries, maxBytes, ALGORITHMS[(int) asked], sum, part, KeySketch.of(bytes, FIXED + 8 * n));
        }
    }

    /**
     * Runs as the object all-gather carries them: bytes out of a {@code Supplier} (which may throw),
     * lent to the call as they are ({@link RawBytes}); bytes in.
     */
    private record RunCodec(String id) implements Codec<Object>, RawBytes {

        @Override
        @SuppressWarnings("unchecked")
        public byte[] bytesOf(Object value) {
            return value instanceof byte[] bytes ? bytes : ((Supplier<byte[]>) value).get();
        }

        @Override
        public void encode(Object value, OutputStream out) throws IOException {
            out.write(bytesOf(value));
        }

        @Override
        public Object decode(InputStream in) throws IOException {
            return in.readAllBytes();
        }
    }
}
