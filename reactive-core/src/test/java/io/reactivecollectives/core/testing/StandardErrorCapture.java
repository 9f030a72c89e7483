package io.reactivecollectives.core.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What is written to {@code System.err} while it is open (slf4j-simple, the tests' binding, and
 * {@code Notices} both write there), still passed on to the real stream.
 */
public final class StandardErrorCapture implements AutoCloseable {

    private final PrintStream saved = System.err;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    /** Starts capturing. */
    public StandardErrorCapture() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (bytes) {
                    bytes.write(b);
                }
                saved.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (bytes) {
                    bytes.write(b, off, len);
                }
                saved.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** Everything captured so far. */
    public String text() {
        synchronized (bytes) {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(saved);
    }
}
