package io.reactivecollectives.core.rendezvous;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * A child JVM for {@link FileStoreTest}: {@code add <file> <count> <key>} does {@code count} adds of 1
 * and prints each result; {@code hammer <file> <prefix>} sets ever new 256 KiB keys {@code <prefix><i>} (every byte
 * {@code i}) until killed, printing {@code ready} after the first.
 */
public final class FileStoreChild {

    private FileStoreChild() {
    }

    public static void main(String[] args) {
        Path file = Path.of(args[1]);
        try (FileStore store = new FileStore(file, Duration.ofSeconds(60))) {
            switch (args[0]) {
                case "add" -> {
                    int count = Integer.parseInt(args[2]);
                    StringBuilder out = new StringBuilder();
                    for (int i = 0; i < count; i++) {
                        out.append(store.add(args[3], 1).block()).append('\n');
                    }
                    System.out.print(out);
                    System.out.println("done");
                }
                case "hammer" -> {
                    for (int i = 0; ; i++) {
                        store.set(args[2] + i, hammerValue(i)).block();
                        if (i == 0) {
                            System.out.println("ready");
                            System.out.flush();
                        }
                    }
                }
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        }
        System.out.flush();
    }

    static byte[] hammerValue(int i) {
        byte[] value = new byte[256 * 1024];
        Arrays.fill(value, (byte) i);
        return value;
    }
}
