package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReduceOpTest {

    /** c10d's table, written out: which (op, dtype) pairs a collective accepts. */
    private static boolean allowed(ReduceOp.Kind op, DType dtype) {
        boolean floating = dtype == DType.FLOAT16 || dtype == DType.BFLOAT16 || dtype == DType.FLOAT32
                || dtype == DType.FLOAT64;
        switch (op) {
            case AVG: return dtype != DType.BOOL;
            case BAND: case BOR: case BXOR: return !floating;
            case PREMUL_SUM: return floating;
            default: return true;
        }
    }

    @Test
    void validateFollowsC10dRulesForEveryPair() {
        int accepted = 0;
        for (ReduceOp op : ReduceOp.values()) {
            for (DType dtype : DType.values()) {
                boolean want = allowed(op.kind(), dtype);
                assertEquals(want, op.supports(dtype), op + " on " + dtype);
                if (want) {
                    accepted++;
                    op.validate("allReduce", dtype);
                } else {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> op.validate("allReduce", dtype));
                    String m = e.getMessage();
                    assertTrue(m.startsWith("allReduce"), "names the collective: " + m);
                    assertTrue(m.contains(op.kind().name()), "names the op: " + m);
                    assertTrue(m.contains(dtype.toString()), "names the dtype: " + m);
                }
            }
        }
        assertEquals(63, accepted);
    }

    @Test
    void parseAcceptsNamesInAnyCaseAndPremulSumWithAFactor() {
        assertSame(ReduceOp.SUM, ReduceOp.parse("sum"));
        assertSame(ReduceOp.AVG, ReduceOp.parse(" AVG "));
        assertSame(ReduceOp.PRODUCT, ReduceOp.parse("prod"));
        assertSame(ReduceOp.PRODUCT, ReduceOp.parse("Product"));
        assertSame(ReduceOp.MIN, ReduceOp.parse("min"));
        assertSame(ReduceOp.MAX, ReduceOp.parse("max"));
        assertSame(ReduceOp.BAND, ReduceOp.parse("band"));
        assertSame(ReduceOp.BOR, ReduceOp.parse("bor"));
        assertSame(ReduceOp.BXOR, ReduceOp.parse("bxor"));
        ReduceOp p = ReduceOp.parse("premul_sum:0.25");
        assertEquals(ReduceOp.Kind.PREMUL_SUM, p.kind());
        assertEquals(0.25, p.factor());
        assertEquals(1.0, ReduceOp.parse("PREMUL_SUM").factor());
        for (ReduceOp op : ReduceOp.values()) {
            assertEquals(op, ReduceOp.parse(op.kind() == ReduceOp.Kind.PREMUL_SUM
                    ? "premul_sum:" + op.factor() : op.toString()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReduceOp.parse("mean"));
        assertTrue(e.getMessage().contains("mean"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReduceOp.parse("premul_sum:x"));
    }

    @Test
    void premulSumNeedsAFiniteFactorAndComparesByFactor() {
        assertThrows(IllegalArgumentException.class, () -> ReduceOp.premulSum(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> ReduceOp.premulSum(Double.POSITIVE_INFINITY));
        assertEquals(ReduceOp.premulSum(0.5), ReduceOp.premulSum(0.5));
        assertEquals(ReduceOp.premulSum(0.5).hashCode(), ReduceOp.premulSum(0.5).hashCode());
        assertNotEquals(ReduceOp.premulSum(0.5), ReduceOp.premulSum(2));
        assertNotEquals(ReduceOp.SUM, ReduceOp.premulSum(1));
        assertEquals("PREMUL_SUM(0.5)", ReduceOp.premulSum(0.5).toString());
        assertEquals(1.0, ReduceOp.SUM.factor());
    }

    @Test
    void valuesAndOfCoverEveryKind() {
        Set<ReduceOp.Kind> kinds = new HashSet<>();
        for (ReduceOp op : ReduceOp.values()) {
            kinds.add(op.kind());
            assertEquals(op, ReduceOp.of(op.kind()));
        }
        assertEquals(new HashSet<>(Arrays.asList(ReduceOp.Kind.values())), kinds);
    }
}
