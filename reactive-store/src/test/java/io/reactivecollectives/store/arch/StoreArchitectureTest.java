package io.reactivecollectives.store.arch;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store stands on core alone: no class of it names a class of the transport outside the
 * store's own package ({@code transport.rendezvous}), its wire pieces and settings name nothing of
 * the store's client or server, and its compiled descriptor requires no project module but core.
 */
class StoreArchitectureTest {

    private static final String T = "io.reactivecollectives.transport";
    private static final String S = "io.reactivecollectives.store";
    private static JavaClasses main;

    /**
     * The store's main classes: the class-path entry (its {@code classes} folder in the reactor, or
     * its jar) that holds them, whatever the build folder is called ({@code -Drc.build.dir}).
     */
    @BeforeAll
    static void load() throws Exception {
        Path at = storeClasses();
        main = new ClassFileImporter().importLocations(Set.of(Files.isDirectory(at) ? Location.of(at)
                : Location.of(new JarFile(at.toFile()))));
    }

    @Test
    void theStoreSeesWhatItHolds() {
        assertNotNull(main.get(T + ".rendezvous.TcpStoreServer"));
        assertNotNull(main.get(S + ".wire.LengthPrefixedDecoder"));
        assertNotNull(main.get(S + ".settings.StoreSettings"));
        assertTrue(main.stream().allMatch(c -> c.getPackageName().startsWith(S)
                        || c.getPackageName().equals(T + ".rendezvous")),
                "the store's classes are in transport.rendezvous and io.reactivecollectives.store..");
    }

    @Test
    void noClassOfTheStoreDependsOnTheTransport() {
        classes().that().resideInAnyPackage(T + ".rendezvous..", S + "..")
                .should().onlyDependOnClassesThat(DescribedPredicate.describe(
                        "are not of the transport outside transport.rendezvous",
                        c -> !c.getPackageName().startsWith(T) || c.getPackageName().startsWith(T + ".rendezvous")))
                .check(main);
    }

    @Test
    void theProjectModulesTheStoreUsesAreCoreAndItself() {
        classes().that().resideInAnyPackage(T + ".rendezvous..", S + "..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(T + ".rendezvous..", S + "..",
                        "io.reactivecollectives.core..", "io.netty..", "reactor..", "io.micrometer..", "org.slf4j..",
                        "java..", "javax..")
                .check(main);
    }

    @Test
    void wireAndSettingsKnowNothingOfTheStoresClientOrServer() {
        noClasses().that().resideInAnyPackage(S + ".wire..", S + ".settings..")
                .should().dependOnClassesThat().resideInAPackage(T + ".rendezvous..")
                .check(main);
        classes().that().resideInAPackage(S + ".settings..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(S + ".settings..",
                        "io.reactivecollectives.core.settings..", "java..")
                .check(main);
    }

    @Test
    void theDescriptorRequiresOnlyCoreOfTheProject() throws URISyntaxException {
        ModuleDescriptor d = storeDescriptor();
        assertEquals(S, d.name());
        Set<String> project = d.requires().stream().map(ModuleDescriptor.Requires::name)
                .filter(n -> n.startsWith("io.reactivecollectives.")).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of("io.reactivecollectives.core"), project, "the store requires of the project only core");
        assertTrue(d.requires().stream().anyMatch(r -> r.name().equals("io.reactivecollectives.core")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)));
        Set<String> exports = d.exports().stream().map(e -> e.source() + (e.isQualified() ? " to " + e.targets() : ""))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of(T + ".rendezvous", S + ".wire to [io.reactivecollectives.transport]"), exports);
        assertFalse(d.packages().contains(T), "the store holds no package of the transport but rendezvous");
    }

    private static Path storeClasses() throws URISyntaxException {
        return Path.of(TcpStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /**
     * The compiled descriptor of the class-path entry that holds the store's classes, read through a
     * {@link ModuleFinder} so that its packages are all the module's.
     */
    private static ModuleDescriptor storeDescriptor() throws URISyntaxException {
        Path at = storeClasses();
        Set<ModuleReference> found = ModuleFinder.of(at).findAll();
        assertEquals(1, found.size(), "one module at " + at);
        return found.iterator().next().descriptor();
    }
}
