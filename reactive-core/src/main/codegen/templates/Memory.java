<#include "/@includes/loops.ftl" />
<@pp.dropOutputFile />
<@pp.changeOutputFile name="/io/reactivecollectives/core/kernels/Memory.java" />
<@header "ElementArrays.tdd"/>
package io.reactivecollectives.core.kernels;

/**
 * The kernels' raw memory copies (between off-heap memory and Java arrays, and within off-heap
 * memory), through {@link ForeignCopies} ({@code java.lang.foreign}) on JDK 22 and later, else
 * through {@link UnsafeMemory} ({@code sun.misc.Unsafe}), which is then not touched on JDK 22+:
 * its memory access methods print a warning there from JDK 24 on. {@link #AVAILABLE} is false
 * when neither works; the kernels then take their portable path.
 */
final class Memory {

    /** Whether {@code java.lang.foreign} does the copies (else {@code sun.misc.Unsafe}). */
    static final boolean FOREIGN = ForeignCopies.AVAILABLE;

    /** Whether raw memory copies work on this JVM (the fast path of the kernels). */
    static final boolean AVAILABLE = FOREIGN || UnsafeMemory.AVAILABLE;

    private Memory() {
    }
<#list arrays.types as t>
<#assign bytes = (t.size == 1)?then("n", "${t.size}L * n")>

    static void toArray(long address, ${t.array}[] a, int n) {
        if (FOREIGN) {
            ForeignCopies.toArray(address, a, n);
        } else {
            UnsafeMemory.toArray(address, a, UnsafeMemory.${t.base}, ${bytes});
        }
    }

    static void fromArray(${t.array}[] a, long address, int n) {
        if (FOREIGN) {
            ForeignCopies.fromArray(a, address, n);
        } else {
            UnsafeMemory.fromArray(a, UnsafeMemory.${t.base}, address, ${bytes});
        }
    }
</#list>

    /** {@code bytes} bytes from native {@code from} to native {@code to}. */
    static void copy(long from, long to, long bytes) {
        if (FOREIGN) {
            ForeignCopies.copy(from, to, bytes);
        } else {
            UnsafeMemory.copy(from, to, bytes);
        }
    }
}
