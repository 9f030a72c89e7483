package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * Bruck's all-to-all, store and forward, for large groups: in round {@code k} (distance
 * {@code d = 2^k}) each rank sends rank {@code r + d} every piece it holds whose remaining way to
 * its destination, {@code (dest - r) mod n}, has bit {@code k} set, and receives rank
 * {@code r - d}'s; after {@code ceil(log2 n)} rounds every piece has arrived. A rank so talks to
 * {@code 2 log2 n} peers only, all a power of two away (the peers a mesh that connects on demand
 * starts with), instead of every other rank, at the cost of forwarding each piece up to
 * {@code log2 n} times. Pieces may have any lengths: each round's message starts with a table of
 * (source, destination, length) per piece (step {@code 2k}), then the pieces' bytes as segments
 * (step {@code 2k + 1}); a rank's own piece is copied locally. Pieces leave zero-copy from the
 * input; a forwarded piece is a slice of the round's received buffer.
 */
public final class BruckAllToAll {

    /** A piece on its way: from {@code src} to {@code dest}, its bytes (one reference owned). */
    private record Piece(int src, int dest, ByteBuf data) {
    }

    private BruckAllToAll() {
    }

    /**
     * Sends {@code send[q]} to rank {@code q} and receives rank {@code q}'s piece into
     * {@code recv[q]}, for every rank {@code q} (this rank's own piece is copied).
     */
    public static Mono<Void> run(Peers p, Region[] send, Region[] recv) {
        int n = p.size();
        int r = p.rank();
        Mono<Void> local = PairwiseAllToAll.localPiece(p, send, recv);
        if (n == 1) {
            return local;
        }
        return local.then(Mono.defer(() -> {
            List<Piece> held = new ArrayList<>(n - 1);
            for (int q = 0; q < n; q++) {
                if (q != r) {
                    Region s = send[q];
                    held.add(new Piece(r, q, s.buf().retainedSlice(s.index(), s.length())));
                }
            }
            Mono<List<Piece>> rounds = Mono.just(held);
            int step = 0;
            for (int d = 1; d < n; d <<= 1, step += 2) {
                int distance = d;
                int at = step;
                rounds = rounds.flatMap(h -> round(p, h, distance, at, recv));
            }
            return rounds.flatMap(left -> {
                release(left);
                return left.isEmpty() ? Mono.<Void>empty() : Mono.error(p.protocolError(-1, left.size() + " pieces undelivered"));
            });
        }).doOnDiscard(Piece.class, piece -> piece.data().release()));
    }

    /** One round: the moving pieces to {@code r + d}, {@code r - d}'s in; emits what this rank holds after it. */
    private static Mono<List<Piece>> round(Peers p, List<Piece> held, int d, int step, Region[] recv) {
        int n = p.size();
        int r = p.rank();
        int to = (r + d) % n;
        int from = Math.floorMod(r - d, n);
        List<Piece> moving = new ArrayList<>();
        List<Piece> staying = new ArrayList<>();
        for (Piece piece : held) {
            (((Math.floorMod(piece.dest() - r, n)) & d) != 0 ? moving : staying).add(piece);
        }
        ByteBuf table = PooledByteBufAllocator.DEFAULT.directBuffer(4 + 12 * moving.size());
        CompositeByteBuf body = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(Math.max(2, moving.size()));
        table.writeInt(moving.size());
        for (Piece piece : moving) {
            table.writeInt(piece.src()).writeInt(piece.dest()).writeInt(piece.data().readableBytes());
            body.addComponent(true, piece.data());   // the body owns the pieces now
        }
        Mono<Void> out = p.send(to, step, 0, table)
                .then(Segments.send(p, to, step + 1, new Region(body, 0, body.readableBytes())))
                .doFinally(x -> body.release());
        Mono<List<Piece>> in = p.receive(from, step, 0).flatMap(t -> {
            int[] entries;
            try {
                entries = parse(p, from, t);
            } finally {
                t.release();
            }
            int total = 0;
            for (int i = 2; i < entries.length; i += 3) {
                total = Math.addExact(total, entries[i]);
            }
            ByteBuf bytes = Region.allocate(total);
            return Segments.receive(p, from, step + 1, new Region(bytes, 0, total))
                    .then(Mono.fromCallable(() -> land(p, from, entries, bytes, recv)))
                    .doFinally(x -> bytes.release());
        });
        return Mono.zip(out.thenReturn(true), in).map(x -> {
            staying.addAll(x.getT2());
            return staying;
        }).doOnError(e -> release(staying)).doOnCancel(() -> release(staying));
    }

    /** The table's (source, destination, length) triples, checked. */
    private static int[] parse(Peers p, int from, ByteBuf table) {
        int n = p.size();
        int count = table.readableBytes() >= 4 ? table.readInt() : -1;
        if (count < 0 || count > n || table.readableBytes() != 12L * count) {
            throw p.protocolError(from, "an all-to-all round's table of " + table.readableBytes() + " bytes for "
                    + count + " pieces");
        }
        int[] entries = new int[3 * count];
        for (int i = 0; i < entries.length; i += 3) {
            entries[i] = table.readInt();
            entries[i + 1] = table.readInt();
            entries[i + 2] = table.readInt();
            if (entries[i] < 0 || entries[i] >= n || entries[i + 1] < 0 || entries[i + 1] >= n || entries[i + 2] < 0) {
                throw p.protocolError(from, "an all-to-all piece from " + entries[i] + " to " + entries[i + 1] + " of "
                        + entries[i + 2] + " bytes");
            }
        }
        return entries;
    }

    /** Copies the pieces for this rank into {@code recv}; the others, slices of {@code bytes}, go on. */
    private static List<Piece> land(Peers p, int from, int[] entries, ByteBuf bytes, Region[] recv) {
        List<Piece> onward = new ArrayList<>();
        int at = 0;
        try {
            for (int i = 0; i < entries.length; i += 3) {
                int src = entries[i];
                int dest = entries[i + 1];
                int len = entries[i + 2];
                if (dest == p.rank()) {
                    if (recv[src].length() != len) {
                        throw p.protocolError(from, "rank " + src + "'s all-to-all piece has " + len + " bytes, "
                                + recv[src].length() + " expected");
                    }
                    recv[src].copyFrom(new Region(bytes, at, len));
                } else {
                    onward.add(new Piece(src, dest, bytes.retainedSlice(at, len)));
                }
                at += len;
            }
        } catch (RuntimeException e) {
            release(onward);
            throw e;
        }
        return onward;
    }

    private static void release(List<Piece> pieces) {
        for (Piece piece : pieces) {
            ReferenceCountUtil.safeRelease(piece.data());
        }
        pieces.clear();
    }
}
