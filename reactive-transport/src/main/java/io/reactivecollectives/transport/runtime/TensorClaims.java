package io.reactivecollectives.transport.runtime;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.Tensor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * The memory of the tensors that in-flight collectives of one rank's group read and write: a
 * collective whose tensors overlap one of another in-flight collective (the same tensor subscribed
 * twice at once, a view of it, an output shared by two calls) is refused before it starts, instead
 * of two collectives writing one buffer. A receive ({@code recv}, {@code recvAnySource}) claims its
 * tensor too, until its message is in or it ends; a send claims nothing (it only reads, and one
 * tensor may go to several peers at once). Tensors of one collective may overlap each other (an
 * in-place all-gather's input is a view of its output). Thread-safe.
 */
public final class TensorClaims {

    /** Bytes [from, to) of one memory (an off-heap address range, or a heap array's range). */
    private record Claim(Object memory, long from, long to, Object owner, Supplier<String> ownerName, Tensor tensor) {
    }

    private final List<Claim> claims = new ArrayList<>();

    /**
     * Claims {@code tensors} for {@code owner} (named by {@code ownerName} in messages, called only
     * for a message), or returns why not (nothing claimed then).
     */
    public synchronized String claim(Collection<Tensor> tensors, Object owner, Supplier<String> ownerName) {
        if (tensors.isEmpty()) {
            return null;
        }
        List<Claim> mine = new ArrayList<>(tensors.size());
        for (Tensor t : tensors) {
            Claim c = t == null ? null : claimOf(t, owner, ownerName);
            if (c == null) {
                continue;
            }
            for (Claim other : claims) {
                if (other.memory == c.memory && other.from < c.to && c.from < other.to) {
                    return "tensor " + t + " is in use by " + other.ownerName.get() + ", still in flight on this rank "
                            + "(wait for it, or use another tensor, before starting another collective on it)";
                }
            }
            mine.add(c);
        }
        claims.addAll(mine);
        return null;
    }

    /**
     * Why claiming each of {@code tensors} for an owner of its own would be refused now (one in use by
     * an in-flight call of this rank, or two of them overlapping), or null; claims nothing. For a
     * batch whose calls claim one by one as they are issued, checked before any is.
     *
     * @param names each tensor's name, by its position, in messages
     */
    public synchronized String check(List<Tensor> tensors, java.util.function.IntFunction<String> names) {
        List<Object> owners = new ArrayList<>(tensors.size());
        try {
            for (int i = 0; i < tensors.size(); i++) {
                Object owner = new Object();
                int k = i;
                String inUse = claim(java.util.Collections.singletonList(tensors.get(i)), owner, () -> names.apply(k));
                if (inUse != null) {
                    return names.apply(i) + ": " + inUse;
                }
                owners.add(owner);
            }
            return null;
        } finally {
            owners.forEach(this::release);
        }
    }

    /** Releases what {@code owner} claimed. */
    public synchronized void release(Object owner) {
        if (!claims.isEmpty()) {
            claims.removeIf(c -> c.owner == owner);
        }
    }

    private static Claim claimOf(Tensor t, Object owner, Supplier<String> ownerName) {
        if (!t.isCpu() || t.nbytes() == 0) {
            return null;
        }
        ByteBuf b;
        try {
            b = t.buffer();
        } catch (RuntimeException released) {
            return null;
        }
        if (b.refCnt() == 0) {
            return null;
        }
        if (b.hasMemoryAddress()) {
            long a = b.memoryAddress() + b.readerIndex();
            return new Claim(ADDRESSES, a, a + t.nbytes(), owner, ownerName, t);
        }
        if (b.hasArray()) {
            long a = b.arrayOffset() + b.readerIndex();
            return new Claim(b.array(), a, a + t.nbytes(), owner, ownerName, t);
        }
        return new Claim(b.unwrap() != null ? b.unwrap() : b, 0, Long.MAX_VALUE, owner, ownerName, t);
    }

    /** The memory all off-heap address ranges belong to. */
    private static final Object ADDRESSES = new Object();
}
