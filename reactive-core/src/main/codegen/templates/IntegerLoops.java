<#include "/@includes/loops.ftl" />
<@pp.dropOutputFile />
<@pp.changeOutputFile name="/io/reactivecollectives/core/kernels/IntegerLoops.java" />
<@header "ReduceLoops.tdd"/>
package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.ReduceOp;

/**
 * The integer and bool arithmetic of the Java kernels, on blocks in Java arrays:
 * {@code a[i] = op(a[i], b[i])} for {@code i < m} (integers wrap; UINT8 compares and divides
 * unsigned; BOOL results are 0 or 1), and AVG's division. One small loop per (op, type), so that
 * C2 compiles (and vectorises) each on its own.
 */
final class IntegerLoops {
    private IntegerLoops() {
    }
<#list loops.integerTypes as t>

    static void ${t.method}(ReduceOp.Kind k, <#if t.unsignedLoad??>boolean unsigned, </#if>${t.array}[] a, ${t.array}[] b, int m) {
<@combineCases t loops[t.ops]/>
    }
<#if t.divisor??>

    /** AVG's division: {@code a[i] = a[i] / n}, truncating toward zero<#if t.unsignedLoad??> (of the unsigned value with {@code unsigned})</#if>. */
    static void divide${t.method?cap_first}(${t.array}[] a, int m, ${t.divisor} n<#if t.unsignedLoad??>, boolean unsigned</#if>) {
<#if t.unsignedLoad??>
        if (unsigned) {
            for (int i = 0; i < m; i++) {
                a[i] = ${fill(t.store, fill(t.unsignedLoad, "a[i]") + " / n")};
            }
            return;
        }
</#if>
        for (int i = 0; i < m; i++) {
            a[i] = ${fill(t.store, fill(t.load, "a[i]") + " / n")};
        }
    }
</#if>
</#list>
}
