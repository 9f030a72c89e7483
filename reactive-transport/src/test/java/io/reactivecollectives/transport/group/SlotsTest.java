package io.reactivecollectives.transport.group;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A box's slots: the inline first slot and the map beside it behave as one map of addresses. */
class SlotsTest {

    @Test
    void addressesDifferingInAnyPartAreDifferentSlots() {
        CollectiveBox.Slots s = new CollectiveBox.Slots();
        Object a = "a";
        Object b = "b";
        Object c = "c";
        Object d = "d";
        Object e = "e";
        s.put(1, 2, 3, 4, a);
        s.put(9, 2, 3, 4, b);
        s.put(1, 9, 3, 4, c);
        s.put(1, 2, 9, 4, d);
        s.put(1, 2, 3, 9, e);
        assertSame(a, s.get(1, 2, 3, 4));
        assertSame(b, s.get(9, 2, 3, 4));
        assertSame(c, s.get(1, 9, 3, 4));
        assertSame(d, s.get(1, 2, 9, 4));
        assertSame(e, s.get(1, 2, 3, 9));
        assertNull(s.get(2, 2, 3, 4));
        assertSame(a, s.remove(1, 2, 3, 4));
        assertNull(s.get(1, 2, 3, 4));
        assertSame(d, s.remove(1, 2, 9, 4));
        assertNull(s.remove(1, 2, 9, 4));
        assertFalse(s.isEmpty());
        List<Object> drained = new ArrayList<>();
        s.drain(drained::add);
        assertEquals(3, drained.size());
        assertTrue(drained.containsAll(List.of(b, c, e)));
        assertTrue(s.isEmpty());
        assertNull(s.get(9, 2, 3, 4));
    }

    @Test
    void removeIfHoldsLeavesAnotherValueInPlace() {
        CollectiveBox.Slots s = new CollectiveBox.Slots();
        Object waiter = new Object();
        Object payload = new Object();
        s.put(0, 0, 0, 1, payload);
        s.removeIfHolds(0, 0, 0, 1, waiter);
        assertSame(payload, s.get(0, 0, 0, 1));
        s.put(0, 1, 0, 1, waiter);          // beside the inline slot: in the map
        s.removeIfHolds(0, 1, 0, 1, payload);
        assertSame(waiter, s.get(0, 1, 0, 1));
        s.removeIfHolds(0, 1, 0, 1, waiter);
        assertNull(s.get(0, 1, 0, 1));
        s.removeIfHolds(0, 0, 0, 1, payload);
        assertTrue(s.isEmpty());
    }

    /** Random puts and removes against a reference map: the inline slot is reused and never shadows the map. */
    @Test
    void agreesWithAMapUnderRandomUse() {
        Random random = new Random(42);
        CollectiveBox.Slots s = new CollectiveBox.Slots();
        java.util.Map<List<Integer>, Object> reference = new java.util.HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            int tag = random.nextInt(2);
            int step = random.nextInt(3);
            int chunk = random.nextInt(3);
            int source = random.nextInt(2);
            List<Integer> key = List.of(tag, step, chunk, source);
            assertSame(reference.get(key), s.get(tag, step, chunk, source), "at op " + i + " " + key);
            if (reference.containsKey(key)) {
                assertSame(reference.remove(key), s.remove(tag, step, chunk, source));
            } else {
                Object v = new Object();
                reference.put(key, v);
                s.put(tag, step, chunk, source, v);
            }
            assertEquals(reference.isEmpty(), s.isEmpty());
            if (i % 5_000 == 4_999) {
                List<Object> drained = new ArrayList<>();
                Consumer<Object> add = drained::add;
                s.drain(add);
                assertEquals(reference.size(), drained.size());
                assertTrue(drained.containsAll(reference.values()));
                reference.clear();
            }
        }
    }
}
