/**
 * The seeded deterministic simulator. Its user API is {@code dev.lockstep.sim} (the runner, its configuration,
 * the control a test steers with, clusters, nodes, outcomes and failures); the rooms — the simulated OS
 * ({@code sim.os}), the scheduler ({@code sim.sched}), the generator and audit ({@code sim.audit}) — are internal
 * and exported to no module. What test tools need of them is user API in {@code dev.lockstep.sim}:
 * {@code SeededChoices} (choices drawn with the simulator's generator), the open-file bounds of {@code SimConfig}
 * and the JVM flags of {@code SimRunner}.
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

    provides dev.lockstep.spi.SearchHooks with dev.lockstep.sim.SimSearchHooks;
}
