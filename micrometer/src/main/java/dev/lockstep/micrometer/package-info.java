/**
 * Lockstep's metrics in Micrometer: {@link dev.lockstep.micrometer.LockstepMetrics} is a
 * {@link dev.lockstep.spi.MetricsSink} for a runner and a {@link io.micrometer.core.instrument.binder.MeterBinder}
 * for registries.
 *
 * <p>Depends on {@code dev.lockstep.spi} (lockstep-api) and Micrometer's core only: no runtime.
 */
package dev.lockstep.micrometer;
