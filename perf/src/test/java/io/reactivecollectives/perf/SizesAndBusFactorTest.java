package io.reactivecollectives.perf;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SizesAndBusFactorTest {

    @Test
    void parsesSuffixes() {
        assertEquals(4, Sizes.parse("4"));
        assertEquals(64 * 1024, Sizes.parse("64K"));
        assertEquals(1 << 20, Sizes.parse("1m"));
        assertEquals(1L << 31, Sizes.parse("2G"));
        assertEquals(1 << 20, Sizes.parse("1MB"));
    }

    @Test
    void rejectsBadSizes() {
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse("abc"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse("0"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse("-4K"));
    }

    @Test
    void busFactorsAreNcclTests() {
        assertEquals(1.0, BusFactor.of("all_reduce", 2), 1e-12);
        assertEquals(1.5, BusFactor.of("all_reduce", 4), 1e-12);
        assertEquals(0.75, BusFactor.of("all_gather", 4), 1e-12);
        assertEquals(0.5, BusFactor.of("all_to_all", 2), 1e-12);
        assertEquals(1.0, BusFactor.of("broadcast", 8), 1e-12);
        assertEquals(1.0, BusFactor.of("reduce", 3), 1e-12);
        assertTrue(BusFactor.known("reduce_scatter"));
        assertFalse(BusFactor.known("allreduce"));
        assertTrue(BusFactor.splitsByWorld("gather"));
        assertFalse(BusFactor.splitsByWorld("all_reduce"));
    }
}
