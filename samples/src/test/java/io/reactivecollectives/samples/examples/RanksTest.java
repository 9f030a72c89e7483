package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.CollectiveException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a sample prints when its rank fails: the error and its causes on one line; a stack trace only for a bug. */
class RanksTest {

    @Test
    void aFailureIsOneLineWithItsCausesAndNoTraceUnlessItIsABug() {
        UncheckedIOException store = new UncheckedIOException("no TCP store at 10.0.0.1:29500 after 120000 ms",
                new IOException("Connection refused"));
        assertEquals("java.io.UncheckedIOException: no TCP store at 10.0.0.1:29500 after 120000 ms; caused by"
                + " java.io.IOException: Connection refused", Ranks.describe(store));
        assertTrue(Ranks.expected(store), "the store's failure says everything in words");
        assertTrue(Ranks.expected(new CollectiveException("allReduce", 0, 3, "peer 1 left the group")));
        assertTrue(Ranks.expected(new IllegalStateException("wrapped", new IllegalArgumentException("bad --steps"))));
        assertFalse(Ranks.expected(new NullPointerException("x")), "a bug keeps its stack trace");
    }
}
