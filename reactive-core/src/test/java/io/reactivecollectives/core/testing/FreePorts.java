package io.reactivecollectives.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for tests that pick a port now and have something bind it later (a rank JVM's store, a
 * replica, a dashboard). A port from {@code new ServerSocket(0)} comes out of Linux's ephemeral range
 * (32768-60999), which every outgoing connection on the machine also draws from: one of them (a
 * replica dialling a peer, a rank of a test running beside it) can take the port before it is bound.
 * These come from below that range, where only a listener asks for a port by number.
 */
public final class FreePorts {

    private static final int FROM = 20_000;
    private static final int SPAN = 12_000;

    private FreePorts() {
    }

    /** {@return a port below the ephemeral range that nothing listens on now} */
    public static int one() {
        return find(1);
    }

    /** {@return a port below the ephemeral range, free now with the next one too (a store and its replica)} */
    public static int pair() {
        return find(2);
    }

    private static int find(int count) {
        for (int tries = 0; tries < 500; tries++) {
            int p = FROM + ThreadLocalRandom.current().nextInt(SPAN);
            if (free(p, count)) {
                return p;
            }
        }
        throw new UncheckedIOException(new IOException("no " + count + " free neighbouring ports in " + FROM + "-"
                + (FROM + SPAN)));
    }

    private static boolean free(int port, int count) {
        ServerSocket[] held = new ServerSocket[count];
        try {
            for (int i = 0; i < count; i++) {
                held[i] = new ServerSocket(port + i);
            }
            return true;
        } catch (IOException taken) {
            return false;
        } finally {
            for (ServerSocket s : held) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // a listening socket that never accepted: nothing to lose
                    }
                }
            }
        }
    }
}
