package io.reactivecollectives.tools.modules;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.ThrowsDeclaration;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * No internal type in a public signature: a public or protected member (field type, method return,
 * parameter and thrown types, constructor parameters, type-parameter bounds, with their type
 * arguments) or a supertype of a public class in an exported package names no class of a package its
 * module does not export to everyone. The exports are read from the compiled descriptors of every
 * library module on this test's class path ({@link LibraryModules}).
 */
class ExportedApiTest {

    private static Map<String, LibraryModules.Module> modules;
    /** Package to its module, for every package of every library module. */
    private static final Map<String, String> OWNER = new HashMap<>();
    /** Every package exported without a {@code to} clause, of any library module. */
    private static final Set<String> EXPORTED = new HashSet<>();
    private static JavaClasses main;

    @BeforeAll
    static void load() throws IOException {
        modules = LibraryModules.find();
        Set<Location> locations = new HashSet<>();
        for (LibraryModules.Module m : modules.values()) {
            for (String p : m.descriptor().packages()) {
                OWNER.put(p, m.descriptor().name());
            }
            EXPORTED.addAll(m.unqualifiedExports());
            Path at = m.location();
            locations.add(Files.isDirectory(at) ? Location.of(at) : Location.of(new JarFile(at.toFile())));
        }
        main = new ClassFileImporter().importLocations(locations);
    }

    @Test
    void everyLibraryModuleHasADescriptorOnTheClassPath() {
        assertEquals(LibraryModules.EXPECTED, modules.keySet());
        for (LibraryModules.Module m : modules.values()) {
            assertFalse(m.unqualifiedExports().isEmpty(), m.descriptor().name() + " exports nothing");
        }
    }

    @Test
    void publicSignaturesOfExportedPackagesNameOnlyExportedTypes() {
        ArchRule rule = classes().that().resideInAnyPackage(EXPORTED.toArray(String[]::new))
                .and(com.tngtech.archunit.base.DescribedPredicate.describe("are visible outside their module",
                        ExportedApiTest::visibleOutside))
                .should(nameOnlyExportedTypes());
        rule.check(main);
    }

    /** The rule catches a leak: the transport's internals name their own (unexported) types. */
    @Test
    void theRuleSeesAnInternalTypeInAnInternalSignature() {
        JavaClass runner = main.get("io.reactivecollectives.transport.runtime.CollectiveRunner");
        List<String> leaks = new ArrayList<>();
        for (JavaClass c : main) {
            if (c.getPackageName().equals(runner.getPackageName()) && c.getModifiers().contains(JavaModifier.PUBLIC)) {
                check(c, (where, type) -> leaks.add(where + " -> " + type.getName()));
            }
        }
        assertFalse(leaks.isEmpty(), "transport.runtime's public classes name no internal type, or the check sees nothing");
    }

    /** Public, and every enclosing class public too. */
    private static boolean visibleOutside(JavaClass c) {
        for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
            if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }

    private static ArchCondition<JavaClass> nameOnlyExportedTypes() {
        return new ArchCondition<>("name only types of packages their modules export") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                ExportedApiTest.check(c, (where, type) -> events.add(SimpleConditionEvent.violated(c,
                        where + " names " + type.getName() + " of " + OWNER.get(type.getPackageName())
                                + ", which does not export " + type.getPackageName())));
            }
        };
    }

    /** What a violation reports: where in the class, and the type it names. */
    private interface Leak {
        void found(String where, JavaClass type);
    }

    private static void check(JavaClass c, Leak leak) {
        c.getSuperclass().ifPresent(t -> named(c.getName() + " extends", t, leak));
        for (JavaType t : c.getInterfaces()) {
            named(c.getName() + " implements", t, leak);
        }
        for (JavaType t : c.getTypeParameters()) {
            named(c.getName() + " type parameter", t, leak);
        }
        for (JavaField f : c.getFields()) {
            if (api(f)) {
                named(f.getFullName(), f.getType(), leak);
            }
        }
        for (JavaCodeUnit u : c.getCodeUnits()) {
            if (!api(u) || u.getName().equals("<clinit>")) {
                continue;
            }
            named(u.getFullName() + " returns", u.getReturnType(), leak);
            for (JavaType t : u.getParameterTypes()) {
                named(u.getFullName() + " takes", t, leak);
            }
            for (JavaType t : u.getTypeParameters()) {
                named(u.getFullName() + " type parameter", t, leak);
            }
            for (ThrowsDeclaration<? extends JavaCodeUnit> t : u.getThrowsClause()) {
                named(u.getFullName() + " throws", t.getRawType(), leak);
            }
        }
    }

    private static boolean api(JavaMember m) {
        Set<JavaModifier> mods = m.getModifiers();
        return (mods.contains(JavaModifier.PUBLIC) || mods.contains(JavaModifier.PROTECTED))
                && !mods.contains(JavaModifier.SYNTHETIC) && !mods.contains(JavaModifier.BRIDGE);
    }

    private static void named(String where, JavaType type, Leak leak) {
        for (JavaClass raw : type.getAllInvolvedRawTypes()) {
            JavaClass base = raw.getBaseComponentType();
            String pkg = base.getPackageName();
            if (OWNER.containsKey(pkg) && !EXPORTED.contains(pkg)) {
                leak.found(where, base);
            }
        }
    }
}
