package io.reactivecollectives.core.rendezvous;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link StoreContractTest} suite on {@link FileStore}, plus several stores on one file in one
 * JVM, separate JVM processes adding to one counter, torn records, and a writer killed mid-write.
 */
class FileStoreTest extends StoreContractTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();
    private int files;

    @Override
    protected Store newStore(Duration timeout) {
        return new FileStore(dir.resolve("store-" + (files++)), timeout);
    }

    @Override
    protected int concurrentAdds() {
        return 1000;
    }

    @AfterEach
    void killChildren() {
        children.forEach(Process::destroyForcibly);
    }

    @Test
    void storesOnOneFileSeeEachOther() {
        Path file = dir.resolve("shared");
        try (FileStore a = new FileStore(file, WAIT); FileStore b = new FileStore(file, WAIT)) {
            StepVerifier.create(b.get("hello"))
                    .expectSubscription()
                    .then(() -> a.set("hello", b("world")).subscribe())
                    .assertNext(v -> assertEquals("world", s(v)))
                    .expectComplete()
                    .verify(WAIT);
            assertEquals(5L, b.add("n", 5).block(WAIT));
            assertEquals(7L, a.add("n", 2).block(WAIT));
            assertEquals(4L, b.append("log", b("abcd")).block(WAIT));
            assertEquals(6L, a.append("log", b("ef")).block(WAIT));
            assertTrue(b.delete("hello").block(WAIT));
            assertFalse(a.check(List.of("hello")).block(WAIT));
            assertEquals(2L, a.numKeys().block(WAIT));
            assertEquals("abcdef", s(b.get("log").block(WAIT)));
        }
    }

    @Test
    void concurrentStoresOnOneFileLoseNoAdd() {
        Path file = dir.resolve("counter");
        List<FileStore> stores = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            stores.add(new FileStore(file, WAIT));
        }
        try {
            List<Long> results = Flux.range(0, 800)
                    .parallel(4)
                    .runOn(Schedulers.parallel())
                    .flatMap(i -> stores.get(i % 4).add("c", 1))
                    .sequential()
                    .collectList()
                    .block(WAIT);
            assertEquals(LongStream.rangeClosed(1, 800).boxed().collect(Collectors.toCollection(TreeSet::new)),
                    new TreeSet<>(results));
            try (FileStore fresh = new FileStore(file, WAIT)) {
                assertEquals("800", s(fresh.get("c").block(WAIT)));
            }
        } finally {
            stores.forEach(FileStore::close);
        }
    }

    @Test
    void fourProcessesAddingToOneCounterEndAtExactlyOneThousand() throws Exception {
        Path file = dir.resolve("processes");
        List<Process> procs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            procs.add(child("add", file.toString(), "250", "counter"));
        }
        TreeSet<Long> seen = new TreeSet<>();
        for (Process p : procs) {
            List<String> lines = readAll(p);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child did not finish");
            assertEquals(0, p.exitValue(), "child failed: " + lines);
            assertEquals("done", lines.get(lines.size() - 1), String.join("\n", lines));
            for (String line : lines.subList(0, lines.size() - 1)) {
                assertTrue(seen.add(Long.parseLong(line)), "two adds saw the value " + line);
            }
        }
        assertEquals(LongStream.rangeClosed(1, 1000).boxed().collect(Collectors.toCollection(TreeSet::new)), seen);
        try (FileStore store = new FileStore(file, WAIT)) {
            assertEquals("1000", s(store.get("counter").block(WAIT)));
        }
    }

    @Test
    void aWriterKilledMidWriteDoesNotCorruptTheStore() throws Exception {
        Path file = dir.resolve("killed");
        int torn = 0;
        try (FileStore store = new FileStore(file, WAIT)) {
            store.set("before", b("intact")).block(WAIT);
            long expectedKeys = 1;
            for (int round = 0; round < 3; round++) {
                String prefix = "r" + round + "h";
                Process hammer = child("hammer", file.toString(), prefix);
                BufferedReader out = new BufferedReader(new InputStreamReader(hammer.getInputStream(), StandardCharsets.UTF_8));
                assertEquals("ready", out.readLine(), "child did not start writing");
                // let it write for a while; the kill lands anywhere, sometimes inside a record
                Thread.sleep(100 + 100L * round);
                hammer.destroyForcibly();
                assertTrue(hammer.waitFor(30, TimeUnit.SECONDS));
                long size = Files.size(file);
                long valid;
                try (FileStore reader = new FileStore(file, WAIT)) {
                    valid = reader.validLength();
                }
                if (valid < size) {
                    torn++;
                }

                // the survivor reads and writes, and every complete record of the dead writer is intact
                assertEquals("intact", s(store.get("before").block(WAIT)));
                long keys = store.numKeys().block(WAIT);
                long written = keys - expectedKeys;
                assertTrue(written >= 1, "the hammer wrote nothing the store can read");
                store.set("after" + round, b("works")).block(WAIT);
                assertEquals(round + 1L, store.add("ctr", 1).block(WAIT));
                assertEquals(valid + FileStore.encode(FileStore.SET, "after" + round, b("works")).length
                        + FileStore.encode(FileStore.SET, "ctr", b(Integer.toString(round + 1))).length, Files.size(file),
                        "the next writer must cut exactly the torn tail");
                expectedKeys = keys + 1 + (round == 0 ? 1 : 0);
                try (FileStore fresh = new FileStore(file, WAIT)) {
                    assertEquals(expectedKeys, fresh.numKeys().block(WAIT));
                    for (int i = 0; i < written; i++) {
                        assertArrayEquals(FileStoreChild.hammerValue(i), fresh.get(prefix + i, WAIT).block(WAIT), prefix + i);
                    }
                    assertFalse(fresh.check(List.of(prefix + written)).block(WAIT));
                    assertEquals("works", s(fresh.get("after" + round).block(WAIT)));
                    assertEquals(Integer.toString(round + 1), s(fresh.get("ctr").block(WAIT)));
                }
                System.out.println("round " + round + ": hammer wrote " + written + " records; "
                        + (size - valid) + " torn bytes at the end after the kill");
            }
        }
        System.out.println("kills that left a torn record: " + torn + " of 3");
    }

    @Test
    void aTornRecordAtTheEndIsCutAndTheRestIsKept() throws IOException {
        Path file = dir.resolve("torn");
        try (FileStore store = new FileStore(file, WAIT)) {
            store.set("a", b("1")).then(store.set("b", b("2"))).block(WAIT);
        }
        long good = Files.size(file);
        byte[] record = FileStore.encode(FileStore.SET, "c", new byte[100]);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap(record, 0, record.length / 2)); // the writer died half-way
        }
        try (FileStore store = new FileStore(file, WAIT)) {
            assertEquals(2L, store.numKeys().block(WAIT));
            assertFalse(store.check(List.of("c")).block(WAIT));
            assertEquals(good + record.length / 2, Files.size(file), "a read must not repair");
            store.set("d", b("4")).block(WAIT);
            assertEquals(good + FileStore.encode(FileStore.SET, "d", b("4")).length, Files.size(file),
                    "the torn bytes must be cut before appending");
        }
        try (FileStore store = new FileStore(file, WAIT)) {
            assertEquals(List.of("1", "2", "4"),
                    store.multiGet(List.of("a", "b", "d")).block(WAIT).stream().map(StoreContractTest::s).toList());
            assertEquals(3L, store.numKeys().block(WAIT));
        }
    }

    @Test
    void aCorruptOrBogusTailIsIgnored() throws IOException {
        Path file = dir.resolve("corrupt");
        try (FileStore store = new FileStore(file, WAIT)) {
            store.set("a", b("1")).block(WAIT);
        }
        // a complete record with a flipped payload byte (crc mismatch), then a header claiming 2 GB
        byte[] record = FileStore.encode(FileStore.SET, "x", b("payload"));
        record[FileStore.HEADER + 2] ^= 0x40;
        ByteBuffer bogus = ByteBuffer.allocate(FileStore.HEADER + FileStore.TRAILER)
                .putInt(FileStore.MAGIC).put(FileStore.SET).putInt(1).putInt(Integer.MAX_VALUE - 100).putInt(0);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap(record));
            ch.write(bogus.flip());
        }
        try (FileStore store = new FileStore(file, WAIT)) {
            assertEquals(1L, store.numKeys().block(WAIT));
            assertFalse(store.check(List.of("x")).block(WAIT));
            assertEquals(2L, store.add("a", 1).block(WAIT));
        }
        try (FileStore store = new FileStore(file, WAIT)) {
            assertEquals("2", s(store.get("a").block(WAIT)));
            assertEquals(1L, store.numKeys().block(WAIT));
        }
    }

    @Test
    void closedStoreFailsCallsAndWaits() {
        FileStore store = new FileStore(dir.resolve("closing"), WAIT);
        StepVerifier.create(store.get("never"))
                .expectSubscription()
                .then(store::close)
                .expectErrorSatisfies(e -> assertTrue(e instanceof IllegalStateException && e.getMessage().contains("closed"),
                        e.toString()))
                .verify(WAIT);
        StepVerifier.create(store.set("k", b("v"))).expectError(IllegalStateException.class).verify(WAIT);
    }

    private Process child(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                FileStoreChild.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        children.add(p);
        return p;
    }

    private static List<String> readAll(Process p) throws IOException {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            return r.lines().collect(Collectors.toList());
        }
    }
}
