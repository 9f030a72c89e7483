package io.reactivecollectives.perf;

import io.reactivecollectives.core.rendezvous.Store;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * nccl-tests' {@code # Using devices} lines: each rank puts its pid, host and what it runs on in the
 * store; rank 0 reads them all and prints one line per rank, the device being the rank's index
 * among the ranks of its host (nccl-tests' local rank) and the bus id zeros (no PCI device).
 */
final class PerfDevices {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private PerfDevices() {
    }

    private static String key(int rank) {
        return "collectives-perf/device/" + rank;
    }

    /** Puts this rank's {@code pid host name} in the store (waits, on the rank's own thread). */
    static void publish(Store store, int rank, String name) {
        String line = ProcessHandle.current().pid() + " " + hostName() + " " + name;
        store.set(key(rank), line.getBytes(StandardCharsets.UTF_8)).block(WAIT);
    }

    /** {@code # Using devices} and a line per rank, from what every rank published. */
    static List<String> lines(Store store, int world) {
        List<String> lines = new ArrayList<>(List.of("# Using devices"));
        Map<String, Integer> perHost = new HashMap<>();
        for (int r = 0; r < world; r++) {
            byte[] v = store.get(key(r), WAIT).block(WAIT);
            String[] p = new String(v, StandardCharsets.UTF_8).split(" ", 3);
            int device = perHost.merge(p[1], 1, Integer::sum) - 1;
            lines.add(NcclTestsFormat.device(r, Long.parseLong(p[0]), p[1], device, p[2]));
        }
        return lines;
    }

    /** This host's name up to its first dot, as nccl-tests' {@code getHostName}; {@code localhost} when unknown. */
    static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h == null || h.isBlank()) {
            try {
                h = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).trim();
            } catch (java.io.IOException | RuntimeException e) {
                h = "localhost";
            }
        }
        int dot = h.indexOf('.');
        String name = dot > 0 ? h.substring(0, dot) : h;
        return name.isBlank() ? "localhost" : name.replace(' ', '_');
    }
}
