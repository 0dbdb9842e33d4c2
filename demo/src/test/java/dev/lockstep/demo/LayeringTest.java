package dev.lockstep.demo;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency rules of CONTRIBUTING.md's layout table, checked on the compiled main classes of every module on
 * this module's class path (all but the benchmarks): a rule broken by a new import fails here, naming the class and
 * the dependency, instead of living on as a sentence nobody checks.
 */
class LayeringTest {
    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("dev.lockstep");
    }

    @Test
    void importedEveryModule() {
        // A rule over no classes holds vacuously: make sure each module's classes were found.
        for (String probe : new String[] {"dev.lockstep.Runner", "dev.lockstep.engine.Engine",
                "dev.lockstep.kernel.Ring", "dev.lockstep.uring.UringRunner", "dev.lockstep.sim.SimRunner",
                "dev.lockstep.testing.SimulationTest", "dev.lockstep.property.Gen", "dev.lockstep.demo.Main"}) {
            assertTrue(main.contain(probe),
                    "the layering rules did not see " + probe + ": its module's classes were not imported");
        }
    }

    @Test
    void theApiDependsOnTheJdkOnly() {
        check(classes().that().resideInAnyPackage("dev.lockstep", "dev.lockstep.sync", "dev.lockstep.spi")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "dev.lockstep", "dev.lockstep.sync", "dev.lockstep.spi"));
    }

    @Test
    void theKernelSpiDependsOnTheJdkOnly() {
        check(classes().that().resideInAPackage("dev.lockstep.kernel")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.lockstep.kernel"));
    }

    @Test
    void theEngineNeverReachesARuntimeOrATestTool() {
        check(classes().that().resideInAPackage("dev.lockstep.engine..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "jdk.internal..", "dev.lockstep",
                        "dev.lockstep.sync", "dev.lockstep.spi", "dev.lockstep.kernel", "dev.lockstep.engine.."));
    }

    @Test
    void theRuntimesDoNotKnowEachOther() {
        check(noClasses().that().resideInAPackage("dev.lockstep.uring..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep.sim..", "dev.lockstep.testing..",
                        "dev.lockstep.demo.."));
        check(noClasses().that().resideInAPackage("dev.lockstep.sim..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep.uring..", "dev.lockstep.testing..",
                        "dev.lockstep.demo.."));
    }

    @Test
    void theTestToolsNameRuntimeUringInOneClassAndNeverTheDemo() {
        check(noClasses().that().resideInAPackage("dev.lockstep.testing..")
                .should().dependOnClassesThat().resideInAPackage("dev.lockstep.demo.."));
        check(noClasses().that().resideInAPackage("dev.lockstep.testing..")
                .and().haveNameNotMatching("dev\\.lockstep\\.testing\\.UringRun(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("dev.lockstep.uring.."));
        check(noClasses().that().resideInAPackage("dev.lockstep.property..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep", "dev.lockstep.engine..",
                        "dev.lockstep.sim..", "dev.lockstep.uring..", "dev.lockstep.testing.."));
    }

    @Test
    void theDemoServicesAreWrittenAgainstThePublicApiOnly() {
        check(classes().that().resideInAnyPackage("dev.lockstep.demo.kv..", "dev.lockstep.demo.replica..",
                        "dev.lockstep.demo.raft..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.lockstep", "dev.lockstep.sync",
                        "dev.lockstep.demo.kv..", "dev.lockstep.demo.replica..", "dev.lockstep.demo.raft.."));
    }

    private static void check(ArchRule rule) {
        rule.allowEmptyShould(false).check(main);
    }
}
