package dev.lockstep.demo;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency rules of CONTRIBUTING.md's layout table, checked on the compiled main classes of every module on
 * this module's class path (all but the benchmarks): a rule broken by a new import fails here, naming the class and
 * the dependency, instead of living on as a sentence nobody checks. That includes the simulator's rooms
 * (ARCHITECTURE.md §5): the audit uses no other room, the simulated OS knows neither the scheduler nor the run, and
 * the scheduler does not know the run. And the engine's rooms (ARCHITECTURE.md §3): the buffers use no request,
 * fiber or I/O room, fibers and supervision use neither the buffers nor I/O, and the two edges that run back up
 * into the I/O room (the driver's permit and lane, the worker's recyclers) name their types.
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
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "jdk.internal..", "jdk.jfr..",
                        "dev.lockstep",
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

    /** The descriptors export neither the engine nor the simulator's rooms to testing; the class path agrees. */
    @Test
    void theTestToolsReachTheSimulatorThroughItsUserApiOnly() {
        check(noClasses().that().resideInAPackage("dev.lockstep.testing..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep.engine..", "dev.lockstep.kernel..",
                        "dev.lockstep.sim.os..", "dev.lockstep.sim.sched..", "dev.lockstep.sim.audit.."));
    }

    @Test
    void theDemoServicesAreWrittenAgainstThePublicApiOnly() {
        check(classes().that().resideInAnyPackage("dev.lockstep.demo.kv..", "dev.lockstep.demo.replica..",
                        "dev.lockstep.demo.raft..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.lockstep", "dev.lockstep.sync",
                        "dev.lockstep.demo.kv..", "dev.lockstep.demo.replica..", "dev.lockstep.demo.raft.."));
    }

    @Test
    void theSimulatorsAuditRoomUsesNoOtherRoomAndOnlyTheValueTypesItIsConfiguredWith() {
        check(classes().that().resideInAPackage("dev.lockstep.sim.audit")
                .should().onlyDependOnClassesThat(outsideTheSimulatorOr(List.of("dev.lockstep.sim.audit"),
                        "Coverage", "DecisionChain", "FaultPoints", "InvalidConfigException")));
    }

    @Test
    void theSimulatedOsKnowsNeitherTheSchedulerNorTheRun() {
        check(classes().that().resideInAPackage("dev.lockstep.sim.os")
                .should().onlyDependOnClassesThat(outsideTheSimulatorOr(
                        List.of("dev.lockstep.sim.os", "dev.lockstep.sim.audit"), "CrashPolicy", "CrashReport",
                        "KernelBehavior", "LinkProfile", "NetworkConfig", "SimNode$IoBoundary", "StorageFaults",
                        "StorageImage", "SyncFailureModel")));
    }

    @Test
    void theSchedulerKnowsTheOsAndTheAuditButNotTheRun() {
        check(classes().that().resideInAPackage("dev.lockstep.sim.sched")
                .should().onlyDependOnClassesThat(outsideTheSimulatorOr(
                        List.of("dev.lockstep.sim.sched", "dev.lockstep.sim.os", "dev.lockstep.sim.audit"),
                        "Priorities", "Scheduling")));
    }

    @Test
    void theBuffersUseNoRequestFiberOrIoRoom() {
        check(classes().that().resideInAPackage("dev.lockstep.engine.buffer")
                .should().onlyDependOnClassesThat(outsideTheEngineRoomsOr(
                        List.of("dev.lockstep.engine.buffer", "dev.lockstep.engine.worker"))));
    }

    @Test
    void theFibersAndSupervisionUseNeitherTheBuffersNorTheIoRoom() {
        check(classes().that().resideInAPackage("dev.lockstep.engine.task")
                .should().onlyDependOnClassesThat(outsideTheEngineRoomsOr(List.of("dev.lockstep.engine.task",
                        "dev.lockstep.engine.worker", "dev.lockstep.engine.request"))));
    }

    @Test
    void theRequestsReachTheIoRoomOnlyForThePermitAndTheLane() {
        check(classes().that().resideInAPackage("dev.lockstep.engine.request")
                .should().onlyDependOnClassesThat(outsideTheEngineRoomsOr(List.of("dev.lockstep.engine.request",
                        "dev.lockstep.engine.worker", "dev.lockstep.engine.task"),
                        "io.DurabilityPermit", "io.MetadataLane")));
    }

    @Test
    void theWorkerReachesTheIoRoomOnlyForTheKindsItRecycles() {
        check(classes().that().resideInAPackage("dev.lockstep.engine.worker")
                .should().onlyDependOnClassesThat(outsideTheEngineRoomsOr(List.of("dev.lockstep.engine.worker",
                        "dev.lockstep.engine.request", "dev.lockstep.engine.task", "dev.lockstep.engine.buffer"),
                        "io.BlobReadRequest", "io.BlobWriteRequest", "io.EngineNetwork$SendRequest")));
    }

    /**
     * Any class outside the engine's rooms (the engine's own package {@code dev.lockstep.engine}, which every room
     * may use, included), a class of one of {@code rooms}, or one of the named types of a room (with its nested
     * types), given relative to {@code dev.lockstep.engine}.
     */
    private static DescribedPredicate<JavaClass> outsideTheEngineRoomsOr(List<String> rooms, String... types) {
        String description = "are outside the engine's rooms, in " + rooms + ", or one of " + List.of(types);
        return DescribedPredicate.describe(description, type -> {
            String name = type.getName();
            if (!type.getPackageName().startsWith("dev.lockstep.engine.") || rooms.contains(type.getPackageName())) {
                return true;
            }
            for (String named : types) {
                String allowed = "dev.lockstep.engine." + named;
                if (name.equals(allowed) || name.startsWith(allowed + "$")) {
                    return true;
                }
            }
            return false;
        });
    }

    /**
     * Any class outside runtime-sim, a class of one of {@code rooms}, or one of the named types of
     * {@code dev.lockstep.sim} (with its nested types).
     */
    private static DescribedPredicate<JavaClass> outsideTheSimulatorOr(List<String> rooms, String... userTypes) {
        String description = "are outside dev.lockstep.sim.., in " + rooms + ", or one of dev.lockstep.sim's "
                + List.of(userTypes);
        return DescribedPredicate.describe(description, type -> {
            String name = type.getName();
            if (!name.startsWith("dev.lockstep.sim.") || rooms.contains(type.getPackageName())) {
                return true;
            }
            for (String user : userTypes) {
                String allowed = "dev.lockstep.sim." + user;
                if (name.equals(allowed) || name.startsWith(allowed + "$")) {
                    return true;
                }
            }
            return false;
        });
    }

    private static void check(ArchRule rule) {
        rule.allowEmptyShould(false).check(main);
    }
}
