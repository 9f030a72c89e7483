<#-- Helpers of the templates: the generated-file header, and one loop per (op, type). -->
<#macro header data>
// GENERATED at build time by FMPP (FreeMarker) from src/main/codegen/templates/${pp.sourceFile}
// and src/main/codegen/data/${data} (reactive-core's pom.xml). Edit those, not this file.
</#macro>
<#-- pattern with $v replaced by v -->
<#function fill pattern v><#return pattern?replace("$v", v)></#function>
<#-- one switch case per op: its loop, a[i] = store(op(load(a[i]), load(b[i]))) -->
<#macro combineCases t ops>
        switch (k) {
<#list ops as o>
<#list o.kinds as kind>
            case ${kind}:
</#list>
<#if o.branchFree??>
<#if t.unsignedLoad??>
                if (unsigned) {
<@branchFreeLoop t o t.unsignedLoad "    "/>
                } else {
<@branchFreeLoop t o t.load "    "/>
                }
<#else>
<@branchFreeLoop t o t.load ""/>
</#if>
<#else>
                for (int i = 0; i < m; i++) {
                    a[i] = ${fill(t.store, o.expr?replace("$a", fill(t.load, "a[i]"))?replace("$b", fill(t.load, "b[i]")))};
                }
</#if>
                break;
</#list>
            default:
                throw new AssertionError(k);
        }
</#macro>
<#-- byte MIN/MAX, branch-free in int: d = u - v, and d >> 31 is all ones exactly when u < v -->
<#macro branchFreeLoop t o load indent>
${indent}                for (int i = 0; i < m; i++) {
${indent}                    int u = ${fill(load, "a[i]")};
${indent}                    int d = u - ${fill(load, "b[i]")};
${indent}                    a[i] = ${fill(t.store, o.branchFree)};
${indent}                }
</#macro>
