package io.reactivecollectives.tools.launch;

import java.io.PrintStream;

/**
 * Where the launcher writes the children's prefixed lines, remembering whether the last one was a
 * progress line ended by {@code \r} only, so that it can be ended on Ctrl-C.
 */
final class LineSink {

    private final PrintStream sink;
    private boolean open;

    LineSink(PrintStream sink) {
        this.sink = sink;
    }

    /** Writes {@code prefix} and the first {@code length} bytes of {@code line} (which end in \n or \r). */
    synchronized void write(byte[] prefix, byte[] line, int length) {
        sink.write(prefix, 0, prefix.length);
        sink.write(line, 0, length);
        sink.flush();
        open = length > 0 && line[length - 1] == '\r';
    }

    /** Whether the last line written was ended by {@code \r} alone (a progress line the cursor still sits on). */
    synchronized boolean lineOpen() {
        return open;
    }

    /** Ends a progress line left open with a newline; does nothing otherwise. */
    synchronized void endOpenLine() {
        if (open) {
            sink.println();
            sink.flush();
            open = false;
        }
    }
}
