<#include "/@includes/loops.ftl" />
<@pp.dropOutputFile />
<@pp.changeOutputFile name="/io/reactivecollectives/core/kernels/FloatLoops.java" />
<@header "ReduceLoops.tdd"/>
package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.ReduceOp;

/**
 * The floating-point arithmetic of the Java kernels, on blocks in Java arrays:
 * {@code a[i] = op(a[i], b[i])} for {@code i < m} (MIN/MAX as {@link Math#min}/{@link Math#max};
 * FLOAT16 and BFLOAT16 computed in float32 and rounded to nearest-even), and the scaling of AVG
 * and PREMUL_SUM. One small loop per (op, type), so that C2 compiles (and vectorises) each on its own.
 */
final class FloatLoops {
    private FloatLoops() {
    }

    /** bfloat16 to float32: the upper half of the bits. */
    private static float bf(short h) {
        return Float.intBitsToFloat(h << 16);
    }
<#list loops.floatTypes as t>

    static void ${t.method}(ReduceOp.Kind k, ${t.array}[] a, ${t.array}[] b, int m) {
<@combineCases t loops.floatOps/>
    }

    /** {@code a[i] = a[i] / x} (with {@code divide}) or {@code a[i] * x}, computed in ${t.compute}. */
    static void scale${t.method?cap_first}(${t.array}[] a, int m, ${t.compute} x, boolean divide) {
        if (divide) {
            for (int i = 0; i < m; i++) {
                a[i] = ${fill(t.store, fill(t.load, "a[i]") + " / x")};
            }
        } else {
            for (int i = 0; i < m; i++) {
                a[i] = ${fill(t.store, fill(t.load, "a[i]") + " * x")};
            }
        }
    }
</#list>
}
