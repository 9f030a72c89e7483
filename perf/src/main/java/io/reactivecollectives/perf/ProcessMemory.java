package io.reactivecollectives.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/** A process's resident memory as Linux reports it ({@code VmRSS}), once or sampled for its peak. */
final class ProcessMemory {

    private ProcessMemory() {
    }

    /** The resident memory of process {@code pid} in bytes, -1 when it cannot be read. */
    static long rss(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    /** Samples a process's resident memory every 50 ms, keeping the peak. */
    static final class PeakSampler extends Thread {
        final long pid;
        final AtomicBoolean stop = new AtomicBoolean();
        volatile long peak;

        PeakSampler(long pid) {
            super("rss-sampler");
            this.pid = pid;
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!stop.get()) {
                peak = Math.max(peak, rss(pid));
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
