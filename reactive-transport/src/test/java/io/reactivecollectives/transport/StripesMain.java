package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.FileStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.mesh.SocketLink;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One of two ranks in its own JVM, for {@link StripedConnectionsProcessesTest}:
 * {@code StripesMain <storeFile> <rank> <stripes> <rounds>}, started with
 * {@code -Drc.transport.unixSockets=false} so that the ranks meet over TCP. Each round forms a
 * group with {@code stripes} connections per peer, checks them, runs a 4 MiB all-reduce, then a
 * 4 MiB broadcast from rank 0 after which rank 0 closes at once (its last segments may still be
 * on their way over the other stripes while its GOODBYE arrives), and checks every element.
 * Prints {@code RANK <r> OK via tcp x<stripes>} and exits 0, or the reason and 1.
 */
public final class StripesMain {

    private static final int N = 1 << 20;

    public static void main(String[] args) {
        Path storeFile = Path.of(args[0]);
        int rank = Integer.parseInt(args[1]);
        int stripes = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int peer = 1 - rank;
        try (Store store = new FileStore(storeFile, Duration.ofSeconds(30))) {
            for (int round = 0; round < rounds; round++) {
                MeshProcessGroup g = MeshProcessGroup.connect(store, rank, 2, GroupOptions.defaults()
                        .withGroupId("stripes-" + round).withConnectionsPerPeer(stripes).withSegmentBytes(64 * 1024)
                        .withConnectTimeout(Duration.ofSeconds(30)).withTimeout(Duration.ofSeconds(20)))
                        .block(Duration.ofSeconds(40));
                try {
                    check("tcp".equals(g.transportTo(peer)), "transport " + g.transportTo(peer));
                    SocketLink link = StripedConnectionsTest.link(g, peer);
                    check(link.stripes() == stripes, link.stripes() + " connections to rank " + peer);
                    Tensor t = ramp(rank);
                    try {
                        g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(20));
                        verify(t, i -> 2 * (i % 1009) + 2000.0, "round " + round + " allReduce");
                    } finally {
                        t.release();
                    }
                    Tensor b = rank == 0 ? ramp(3) : Tensor.empty(DType.FLOAT32, N);
                    try {
                        g.broadcast(b, 0).block(Duration.ofSeconds(20));
                        if (rank == 0) {
                            g.close();   // at once, as a program that is done
                        }
                        verify(b, i -> (i % 1009) + 6000.0, "round " + round + " broadcast");
                    } finally {
                        b.release();
                    }
                } finally {
                    g.close();
                }
            }
            System.out.println("RANK " + rank + " OK via tcp x" + stripes);
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("RANK " + rank + " FAILED: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }

    /** {@code (i mod 1009) + 2000 * k}: a misplaced segment shows. */
    private static Tensor ramp(int k) {
        Tensor t = Tensor.empty(DType.FLOAT32, N);
        byte[] bytes = new byte[N * 4];
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < N; i++) {
            bb.putFloat((float) ((i % 1009) + 2000.0 * k));
        }
        t.buffer().setBytes(0, bytes);
        return t;
    }

    private static void verify(Tensor t, java.util.function.IntToDoubleFunction want, String what) {
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(t.toByteArray()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < N; i++) {
            float got = bb.getFloat();
            check(got == want.applyAsDouble(i), what + ": element " + i + " is " + got + ", want " + want.applyAsDouble(i));
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
