/**
 * The seeded deterministic simulator: the simulated kernel that implements the kernel SPI, and the pieces a
 * simulation is made of.
 *
 * <p>What lives here:
 * <ul>
 *   <li>{@link dev.lockstep.sim.Generator}: the one seeded random source, every draw tagged with its
 *       {@link dev.lockstep.sim.Site}; {@link dev.lockstep.sim.Auditor}: the SHA-256 chain over every event;
 *       {@link dev.lockstep.sim.SimClock}: simulated time, moved only by the scheduler.</li>
 *   <li>{@link dev.lockstep.sim.SimFileSystem}: files and directories with a page cache and a durable image,
 *       {@link dev.lockstep.sim.StorageFaults} and crashes under a {@link dev.lockstep.sim.CrashPolicy}.</li>
 *   <li>{@link dev.lockstep.sim.SimNetwork}: simulated hosts, links with latency and jitter, partitions and
 *       resets ({@link dev.lockstep.sim.LinkProfile}, {@link dev.lockstep.sim.NetworkConfig}).</li>
 *   <li>{@link dev.lockstep.sim.SimKernel}, {@link dev.lockstep.sim.SimRing} and
 *       {@link dev.lockstep.sim.SimSystemCalls}: the implementation of {@link dev.lockstep.kernel} over the
 *       above, with the behaviour of a real kernel at configurable rates ({@link dev.lockstep.sim.KernelBehavior}):
 *       latency, completion order, short transfers, spurious {@code EAGAIN}/{@code EINTR}, cancellation races.</li>
 *   <li>The scheduler and {@code SimRunner}, which drive fibers over these.</li>
 * </ul>
 *
 * <p>The rule that governs every class here is determinism: same seed, same configuration and same calls give
 * the same results and the same audit digest, bit for bit. So: no wall clock, no unseeded randomness, no
 * threads, and no iteration over collections whose order depends on identity hashes (ordered maps and lists
 * only; identity maps are used for lookups alone).
 *
 * <p>Dependencies: the JDK, {@code runtime-core} ({@code dev.lockstep.kernel}, {@code dev.lockstep.engine}) and
 * {@code api} ({@code dev.lockstep}). Nothing else; Guava is not needed.
 */
package dev.lockstep.sim;
