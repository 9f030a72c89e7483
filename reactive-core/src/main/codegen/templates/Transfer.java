<#include "/@includes/loops.ftl" />
<@pp.dropOutputFile />
<@pp.changeOutputFile name="/io/reactivecollectives/core/kernels/Transfer.java" />
<@header "ElementArrays.tdd"/>
package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;

/**
 * Copies {@code m} elements between memory and an array: through {@link Memory} (raw copies)
 * when {@code buf} is null ({@code pos} is an address), else through the buffer's
 * little-endian accessors ({@code pos} is a byte index).
 */
final class Transfer {
    private Transfer() {
    }
<#list arrays.types as t>

    static void in(ByteBuf buf, long pos, ${t.array}[] a, int m) {
        if (buf == null) {
            Memory.toArray(pos, a, m);
        } else {
<#if t.access??>
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                a[i] = ${fill(t.read, "buf.get${t.access}LE(p + ${t.size} * i)")};
            }
<#else>
            buf.getBytes((int) pos, a, 0, m);
</#if>
        }
    }

    static void out(${t.array}[] a, ByteBuf buf, long pos, int m) {
        if (buf == null) {
            Memory.fromArray(a, pos, m);
        } else {
<#if t.access??>
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                buf.set${t.access}LE(p + ${t.size} * i, ${fill(t.write, "a[i]")});
            }
<#else>
            ByteCopies.copy(a, 0, buf, (int) pos, m);
</#if>
        }
    }
</#list>
}
