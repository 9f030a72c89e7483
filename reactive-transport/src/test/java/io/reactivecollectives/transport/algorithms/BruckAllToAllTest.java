package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bruck's all-to-all over in-memory wires: every piece arrives whole at its rank for world sizes
 * 1 to 33 and pieces of uneven lengths (empty ones too), each rank sends only to the ranks a power
 * of two ahead of it, and every buffer is released.
 */
class BruckAllToAllTest {

    /** Bytes of the piece from {@code src} to {@code dest}: uneven, some empty. */
    private static int length(int src, int dest) {
        return (src * 7 + dest * 13) % 23 == 0 ? 0 : 1 + (src * 31 + dest * 17) % 150;
    }

    private static byte value(int src, int dest, int i) {
        return (byte) (src * 11 + dest * 5 + i);
    }

    @Test
    void everyPieceArrivesWholeAndRanksTalkOnlyToPowersOfTwoAway() {
        for (int n : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 23, 31, 32, 33}) {
            InMemoryWires w = new InMemoryWires(Topology.singleHost(n), "allToAll", 64);   // small segments: pieces span several
            List<ByteBuf> buffers = new ArrayList<>();
            List<Region[]> sends = new ArrayList<>();
            List<Region[]> recvs = new ArrayList<>();
            List<Mono<Void>> runs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                Region[] send = new Region[n];
                Region[] recv = new Region[n];
                for (int q = 0; q < n; q++) {
                    ByteBuf s = Region.allocate(length(r, q));
                    for (int i = 0; i < length(r, q); i++) {
                        s.setByte(i, value(r, q, i));
                    }
                    ByteBuf d = Region.allocate(length(q, r));
                    buffers.add(s);
                    buffers.add(d);
                    send[q] = new Region(s, 0, length(r, q));
                    recv[q] = new Region(d, 0, length(q, r));
                }
                sends.add(send);
                recvs.add(recv);
                runs.add(BruckAllToAll.run(w.peers(r), send, recv));
            }
            Mono.when(runs).block(Duration.ofSeconds(30));
            for (int r = 0; r < n; r++) {
                for (int q = 0; q < n; q++) {
                    Region got = recvs.get(r)[q];
                    for (int i = 0; i < got.length(); i++) {
                        assertEquals(value(q, r, i), got.buf().getByte(got.index() + i), n + " ranks: rank " + r + " from " + q + " byte " + i);
                    }
                }
            }
            for (String pair : w.pairs) {
                String[] ft = pair.split(">");
                int d = Math.floorMod(Integer.parseInt(ft[1]) - Integer.parseInt(ft[0]), n);
                assertEquals(1, Integer.bitCount(d), n + " ranks: " + pair + " is not a power of two ahead");
            }
            for (Map.Entry<String, Sinks.One<ByteBuf>> e : w.slots.entrySet()) {
                assertEquals(0, e.getValue().asMono().block(Duration.ZERO).refCnt(), n + " ranks: message " + e.getKey()
                        + " was received and released");
            }
            buffers.forEach(ByteBuf::release);
        }
    }
}
