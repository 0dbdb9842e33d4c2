/**
 * Test tools for users of Lockstep: {@code @SimulationTest}, fault configurations, nemeses and seed sweeps, on
 * the simulator and, optionally, on runtime-uring ({@code @SimulationTest(uring = true)}, which needs
 * {@code lockstep.runtime.uring} on the path and says so if it is missing). A JUnit Jupiter extension, so JUnit reads
 * and instantiates its classes. Re-exports the simulator's user API and the property harness.
 */
module lockstep.testing {
    requires transitive lockstep.api;
    requires transitive lockstep.runtime.sim;
    requires transitive lockstep.property;
    requires transitive org.junit.jupiter.api;
    requires org.junit.platform.commons;
    requires static lockstep.runtime.uring;

    exports dev.lockstep.testing;
    opens dev.lockstep.testing to org.junit.platform.commons;
}
