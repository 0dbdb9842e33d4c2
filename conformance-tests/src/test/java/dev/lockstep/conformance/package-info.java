/**
 * The conformance suite: one set of cases, every case run against every runtime.
 *
 * <p>{@link dev.lockstep.conformance.Conformance} makes a test run once per
 * {@link dev.lockstep.conformance.RuntimeConfig} (the simulator under several seeds with one and two workers,
 * runtime-uring with one and two workers); the test gets a {@link dev.lockstep.conformance.Runtimes} with fresh
 * runners and the runtime's {@link dev.lockstep.conformance.Probe}, which builds them and reads what the runtime
 * shows of itself through its public API (open fds, receive memory, metrics).
 * {@link dev.lockstep.conformance.KnownBug} reports a case's runs on one runtime as disabled, with the bug, while
 * the runtime is fixed.
 *
 * <p>The cases: {@code RuntimeContractTest} (commonware's cross-runtime cases), {@code StorageConformanceTest},
 * {@code NetworkConformanceTest}, Lockstep's own {@code *ConformanceTest}s, the probe tables, the property
 * {@code StorageModelProperties}, and {@code DifferentialTest} with its whitelist {@code differences.md}. Each case
 * names its row of the README's table ({@link dev.lockstep.conformance.Group},
 * {@link dev.lockstep.conformance.ReadmeGroup}); {@code ReadmeTableTest} holds the table to the suite. Cases that
 * must look inside the engine (the seed's {@code Operation} tests, raw kernel requests, the worker a task runs on)
 * are white-box cases of runtime-core's tests, run on both runtimes by runtime-sim's and runtime-uring's tests.
 *
 * <p>Uses the public API alone: {@code dev.lockstep}, {@code dev.lockstep.spi}, {@code dev.lockstep.sync}, the
 * runtimes' user API ({@code dev.lockstep.uring}, {@code dev.lockstep.sim}) and the test fixtures of api's test
 * jar; never the engine, the kernel SPI or the simulator's rooms ({@code PublicApiOnlyTest} checks it).
 */
package dev.lockstep.conformance;
