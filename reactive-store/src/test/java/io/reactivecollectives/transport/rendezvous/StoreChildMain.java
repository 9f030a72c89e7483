package io.reactivecollectives.transport.rendezvous;

import reactor.core.publisher.Flux;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A TCP store client in its own JVM, for the multi-process tests:
 * {@code add HOST PORT KEY N} does N sequential adds of 1 and prints {@code DONE};
 * {@code get HOST PORT KEY} prints {@code WAITING}, then waits for KEY and prints its value.
 */
public final class StoreChildMain {

    private StoreChildMain() {
    }

    public static void main(String[] args) {
        String mode = args[0];
        TcpStore store = TcpStore.connect(TcpStoreOptions.of(args[1], Integer.parseInt(args[2]))
                .withTimeout(Duration.ofSeconds(60))).block(Duration.ofSeconds(60));
        switch (mode) {
            case "add" -> {
                int n = Integer.parseInt(args[4]);
                Flux.range(0, n).concatMap(i -> store.add(args[3], 1)).blockLast(Duration.ofSeconds(120));
                System.out.println("DONE");
            }
            case "get" -> {
                System.out.println("WAITING");
                byte[] v = store.get(args[3]).block(Duration.ofSeconds(120));
                System.out.println(new String(v, StandardCharsets.UTF_8));
            }
            default -> throw new IllegalArgumentException("mode " + mode);
        }
        store.close();
        System.exit(0);
    }
}
