/**
 * The seeded deterministic simulator. Its user API is {@code dev.lockstep.sim} (the runner, its configuration,
 * the control a test steers with, clusters, nodes, outcomes and failures); the rooms — the simulated OS
 * ({@code sim.os}), the scheduler ({@code sim.sched}), the generator and audit ({@code sim.audit}) — are internal.
 *
 * <p>Two rooms are exported to {@code lockstep.testing} alone: {@code sim.audit}, whose {@code Generator} and
 * {@code Site} the guided explorer draws its own choices from, and {@code sim.os}, whose {@code SimKernel} bounds
 * ({@code FIRST_FD}, {@code MAX_FDS}) a test's open-file limit is checked against.
 *
 * <p>The simulated rings hand out native memory through restricted FFM methods, so a JVM that runs it on the
 * module path needs {@code --enable-native-access=lockstep.runtime.sim} (on the class path, {@code =ALL-UNNAMED}),
 * and the engine's {@code --add-opens} (see {@code lockstep.runtime.core}).
 */
module lockstep.runtime.sim {
    requires transitive lockstep.api;
    requires lockstep.runtime.core;
    requires java.management;

    exports dev.lockstep.sim;
    exports dev.lockstep.sim.audit to lockstep.testing;
    exports dev.lockstep.sim.os to lockstep.testing;

    provides dev.lockstep.spi.SearchHooks with dev.lockstep.sim.SimSearchHooks;
}
