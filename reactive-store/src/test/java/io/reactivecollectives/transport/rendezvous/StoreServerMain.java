package io.reactivecollectives.transport.rendezvous;

import java.util.concurrent.CountDownLatch;

/**
 * A stand-alone store server for tests that need one in its own JVM (to stop it with SIGSTOP, or
 * to lose it): {@code StoreServerMain <host> <port>}, authenticated when {@code RC_STORE_SECRET} is
 * set. Prints {@code TCP store listening on <host>:<port>} once bound, as the reactive-tools
 * command does, and serves until killed. (The command itself lives in reactive-tools, which
 * depends on this module, and is tested there.)
 */
public final class StoreServerMain {

    private StoreServerMain() {
    }

    public static void main(String[] args) throws Exception {
        TcpStoreServer server = TcpStoreServer.builder()
                .host(args[0])
                .port(Integer.parseInt(args[1]))
                .secret(StoreAuth.secretFrom(System.getenv()))
                .start()
                .toFuture()
                .get();
        CountDownLatch closed = new CountDownLatch(1);
        server.onClose().doFinally(s -> closed.countDown()).subscribe();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "tcp-store-shutdown"));
        System.out.println("TCP store listening on " + server.address().getHostString() + ":" + server.port());
        System.out.flush();
        closed.await();
    }
}
