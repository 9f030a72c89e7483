package io.reactivecollectives.samples.djl;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** This process's memory for the main job's {@code --memory} lines: resident set, heap after a GC, direct buffers. */
final class MemoryProbe {

    private MemoryProbe() {
    }

    /** {@code rss N MiB, heap N MiB after GC, direct N MiB} (the GC runs on the calling thread, on purpose). */
    static String line() {
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed();
            }
        }
        return String.format(Locale.ROOT, "rss %.1f MiB, heap %.1f MiB after GC, direct %.1f MiB", rssBytes() / 1048576.0,
                heap / 1048576.0, direct / 1048576.0);
    }

    /** VmRSS of /proc/self/status, or -1 where there is none. */
    static long rssBytes() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
