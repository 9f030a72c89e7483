package io.reactivecollectives.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * What a group closes after its connections (the store a {@link ProcessGroups} join made), in the
 * order added; handed on to the next generation when a shrink or a join replaces the group.
 */
final class GroupResources {

    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

    /** Adds {@code resource}; closes it at once when {@code closed} says the group already is. */
    void add(AutoCloseable resource, BooleanSupplier closed) {
        resources.add(resource);
        if (closed.getAsBoolean() && resources.remove(resource)) {
            closeAll(List.of(resource));
        }
    }

    /** Removes and returns every resource (whoever takes one closes it, once). */
    List<AutoCloseable> takeAll() {
        List<AutoCloseable> taken = new ArrayList<>();
        for (AutoCloseable r : resources) {
            if (resources.remove(r)) {
                taken.add(r);
            }
        }
        return taken;
    }

    /** Closes {@code taken} in order; the first failure is thrown with the others suppressed. */
    static void closeAll(List<AutoCloseable> taken) {
        RuntimeException first = null;
        for (AutoCloseable r : taken) {
            try {
                r.close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IllegalStateException("close: closing " + r + " after the group failed: " + e, e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
