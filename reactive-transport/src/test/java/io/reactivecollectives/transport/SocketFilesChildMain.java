package io.reactivecollectives.transport;

import io.reactivecollectives.transport.mesh.Mesh;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A process that binds Unix socket files and then waits to be ended, for {@link SocketFilesProcessesTest}:
 * {@code store HOST PORT} starts a TCP store server and prints {@code SOCKET <port> <path>};
 * {@code cluster} starts a LocalCluster(2) and prints {@code SOCKET <rank> <path>} for each rank's
 * mesh socket. Both then print {@code READY} and wait until the process is ended.
 */
public final class SocketFilesChildMain {

    private static final Duration T = Duration.ofSeconds(30);

    private SocketFilesChildMain() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "store" -> {
                TcpStoreServer server = TcpStoreServer.builder().host(args[1]).port(Integer.parseInt(args[2]))
                        .start().block(T);
                System.out.println("SOCKET " + server.port() + " " + server.localSocket());
            }
            case "cluster" -> {
                LocalCluster cluster = LocalCluster.start(2, GroupOptions.defaults().withGroupId("files")).block(T);
                for (int r = 0; r < cluster.size(); r++) {
                    String published = new String(cluster.store().get(Mesh.addressKey("files", r)).block(T),
                            StandardCharsets.UTF_8);
                    for (String part : published.split(";")) {
                        if (part.startsWith("uds=")) {
                            System.out.println("SOCKET " + r + " " + part.substring(4));
                        }
                    }
                }
            }
            default -> throw new IllegalArgumentException("mode " + args[0]);
        }
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
