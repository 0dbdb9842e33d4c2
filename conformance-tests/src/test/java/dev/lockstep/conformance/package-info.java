/**
 * The conformance suite: one set of cases, every case run against every runtime.
 *
 * <p>{@link dev.lockstep.conformance.Conformance} makes a test run once per
 * {@link dev.lockstep.conformance.RuntimeConfig} (the simulator under several seeds with one and two workers,
 * runtime-uring with one and two workers); the test gets a {@link dev.lockstep.conformance.Runtimes} with fresh
 * runners and the runtime's {@link dev.lockstep.conformance.Probe}, the test SPI through which the seed's
 * tests inspect a worker. {@link dev.lockstep.conformance.KnownBug} reports a case's runs on one runtime as
 * disabled, with the bug, while the runtime is fixed; {@link dev.lockstep.conformance.Bugs} lists the bugs.
 *
 * <p>The cases: {@code SeedOperationTest} (the seed's tests), {@code RuntimeContractTest} (commonware's
 * cross-runtime cases), {@code StorageConformanceTest}, {@code NetworkConformanceTest}, Lockstep's own
 * {@code *ConformanceTest}s, the probe tables, the properties {@code StorageModelProperties} and
 * {@code ForwardingProperties}, and {@code DifferentialTest} with its whitelist {@code differences.md}. Each case
 * names its row of the README's table ({@link dev.lockstep.conformance.Group},
 * {@link dev.lockstep.conformance.ReadmeGroup}); {@code ReadmeTableTest} holds the table to the suite.
 *
 * <p>Depends on the public API ({@code dev.lockstep}), on the engine ({@code dev.lockstep.engine},
 * {@code dev.lockstep.kernel}) for the probe and the seed's raw requests, and on both runtimes.
 */
package dev.lockstep.conformance;
