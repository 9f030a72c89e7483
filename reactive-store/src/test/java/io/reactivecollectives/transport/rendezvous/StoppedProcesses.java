package io.reactivecollectives.transport.rendezvous;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** For tests that freeze a process with SIGSTOP: waiting until the kernel shows it stopped. */
public final class StoppedProcesses {

    private StoppedProcesses() {
    }

    /**
     * Waits until the kernel shows every thread of {@code pid} stopped: kill returns once SIGSTOP is
     * sent, and on a loaded machine a thread on another CPU may still run (and answer) for a moment.
     *
     * @param pid the process sent SIGSTOP
     * @throws Exception when interrupted or /proc cannot be read; an assertion error after 10 s
     */
    public static void awaitStopped(long pid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            boolean all = true;
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    String stat = Files.readString(t.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    all &= state == 'T' || state == 't';
                }
            } catch (NoSuchFileException gone) {
                all = false;   // a thread ended while listed: look again
            }
            if (all) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "process " + pid + " did not stop within 10 s of SIGSTOP");
            Thread.sleep(5);
        }
    }
}
