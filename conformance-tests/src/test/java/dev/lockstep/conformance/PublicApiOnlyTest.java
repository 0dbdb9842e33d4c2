package dev.lockstep.conformance;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The suite holds both runtimes to their public contract, so its classes use the public API alone: nothing of the
 * engine, the kernel SPI or the simulator's rooms, which a user cannot reach either (the modules do not export
 * them). A case that must look inside the engine is a white-box case of runtime-core's tests instead. Checked on
 * the compiled classes (ArchUnit), so a fully qualified name in a method body counts as an import does; demo's
 * {@code LayeringTest} checks the published modules the same way.
 */
class PublicApiOnlyTest {

    @Test
    void theSuiteUsesNeitherTheEngineNorTheKernelSpiNorTheSimulatorsRooms() throws URISyntaxException {
        // The suite's own compiled classes only: scanning every jar of the class path for the package takes longer.
        Path classes = Path.of(PublicApiOnlyTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JavaClasses suite = new ClassFileImporter().importPath(classes);
        // A rule over no classes holds vacuously: make sure the suite's classes were found.
        for (Class<?> expected : new Class<?>[] {Probe.class, Runtimes.class, RuntimeContractTest.class}) {
            assertTrue(suite.contain(expected), "the rule did not see " + expected.getName());
        }
        noClasses().that().resideInAPackage("dev.lockstep.conformance..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep.engine..", "dev.lockstep.kernel..",
                        "dev.lockstep.sim.os..", "dev.lockstep.sim.sched..", "dev.lockstep.sim.audit..")
                .allowEmptyShould(false).check(suite);
    }
}
