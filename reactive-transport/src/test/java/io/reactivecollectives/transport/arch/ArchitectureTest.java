package io.reactivecollectives.transport.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package rules of the transport: each concern has one owner, and dependencies point one way
 * (facade -> ops -> runtime -> failure/group/mesh -> frame -> wire; algorithms see only their SPI and
 * core; the decisions see only the algorithms and core). The store ({@code transport.rendezvous}) is reactive-store's now, on this class path as a
 * dependency: the mesh and the store share only its {@code io.reactivecollectives.store.wire}, and
 * the store's own rules (it uses nothing of the transport) are reactive-store's
 * {@code StoreArchitectureTest}.
 */
class ArchitectureTest {

    private static final String T = "io.reactivecollectives.transport";
    private static JavaClasses main;

    @BeforeAll
    static void load() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(T, "io.reactivecollectives.core", "io.reactivecollectives.store");
    }

    @Test
    void algorithmsDependOnlyOnTheirSpiAndCore() {
        noClasses().that().resideInAPackage(T + ".algorithms..")
                .should().dependOnClassesThat().resideInAnyPackage(T, T + ".runtime..", T + ".ops..", T + ".failure..",
                        T + ".group..", T + ".mesh..", T + ".frame..", T + ".rendezvous..", T + ".launch..")
                .check(main);
    }

    /** A collective's decision table names its algorithms' bodies and nothing of the runtime that calls it. */
    @Test
    void decisionsDependOnlyOnTheAlgorithmsAndCore() {
        noClasses().that().resideInAPackage(T + ".decision..")
                .should().dependOnClassesThat().resideInAnyPackage(T, T + ".runtime..", T + ".ops..", T + ".failure..",
                        T + ".group..", T + ".mesh..", T + ".frame..", T + ".rendezvous..", T + ".launch..", T + ".shm..",
                        T + ".wire..")
                .check(main);
    }

    @Test
    void wireDependsOnlyOnCoreNettyAndReactor() {
        noClasses().that().resideInAPackage(T + ".wire..")
                .should().dependOnClassesThat().resideInAnyPackage(T, T + ".runtime..", T + ".ops..", T + ".failure..",
                        T + ".group..", T + ".mesh..", T + ".frame..", T + ".algorithms..", T + ".rendezvous..",
                        T + ".launch..")
                .check(main);
        classes().that().resideInAPackage(T + ".wire..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(T + ".wire..", "io.reactivecollectives.core..",
                        "io.netty..", "reactor..", "java..", "javax..", "org.slf4j..")
                .check(main);
    }

    /** Frame may use the shared wire pieces ({@code ..wire..}) and nothing else of the transport. */
    @Test
    void frameDependsOnNoOtherTransportPackage() {
        noClasses().that().resideInAPackage(T + ".frame..")
                .should().dependOnClassesThat().resideInAnyPackage(T, T + ".runtime..", T + ".ops..", T + ".failure..",
                        T + ".group..", T + ".mesh..", T + ".algorithms..", T + ".rendezvous..", T + ".launch..")
                .check(main);
    }

    /** Mesh may use frame and the shared wire pieces ({@code ..wire..}). */
    @Test
    void meshDependsOnlyOnFrame() {
        noClasses().that().resideInAPackage(T + ".mesh..")
                .should().dependOnClassesThat().resideInAnyPackage(T, T + ".runtime..", T + ".ops..", T + ".failure..",
                        T + ".group..", T + ".algorithms..", T + ".launch..")
                .check(main);
    }

    /**
     * Of the store, the mesh and frame use only the wire pieces they share with it
     * ({@code io.reactivecollectives.store.wire}): never its client, server or codecs.
     */
    @Test
    void meshAndFrameUseOnlyTheStoresWirePieces() {
        noClasses().that().resideInAnyPackage(T + ".mesh..", T + ".frame..", T + ".wire..")
                .should().dependOnClassesThat().resideInAPackage(T + ".rendezvous..")
                .check(main);
    }

    /** The settings are declarations on core's registry, which every package may read: they use nothing else. */
    @Test
    void settingsDependOnlyOnCoresRegistry() {
        classes().that().resideInAPackage(T + ".settings..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(T + ".settings..",
                        "io.reactivecollectives.core.settings..", "java..")
                .check(main);
    }

    @Test
    void nothingBelowTheFacadeDependsOnIt() {
        noClasses().that().resideInAnyPackage(T + ".runtime..", T + ".ops..", T + ".failure..", T + ".group..",
                        T + ".algorithms..", T + ".decision..", T + ".frame..")
                .should().dependOnClassesThat().resideInAPackage(T)
                .check(main);
    }

    @Test
    void onlyTheFacadeItsHelpersAndLocalClusterTouchMeshProcessGroup() {
        classes().that().haveFullyQualifiedName(T + ".MeshProcessGroup")
                .should().onlyHaveDependentClassesThat().resideInAPackage(T)
                .check(main);
    }

    @Test
    void theFacadesHelpersDoNotNameTheFacade() {
        // Subgroups, GroupShrink and GroupErrors once imported the group class that imports them
        noClasses().that().haveFullyQualifiedName(T + ".Subgroups")
                .or().haveFullyQualifiedName(T + ".GroupShrink")
                .or().haveFullyQualifiedName(T + ".GroupErrors")
                .or().haveFullyQualifiedName(T + ".GroupJoin")
                .should().dependOnClassesThat().haveFullyQualifiedName(T + ".MeshProcessGroup")
                .check(main);
    }

    @Test
    void noPackageCycles() {
        slices().matching(T + ".(*)..").should().beFreeOfCycles().check(main);
    }
}
