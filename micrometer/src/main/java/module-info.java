/**
 * Binds the runtimes' meters ({@code dev.lockstep.spi.MetricsSink}) to Micrometer registries. Re-exports
 * Micrometer's core, whose types its API takes.
 */
module lockstep.micrometer {
    requires transitive lockstep.api;
    requires transitive micrometer.core;

    exports dev.lockstep.micrometer;
}
