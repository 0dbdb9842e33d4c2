/**
 * The seeded deterministic simulator: the simulated kernel that implements the kernel SPI, and the pieces a
 * simulation is made of.
 *
 * <p>What lives here:
 * <ul>
 *   <li>{@link dev.lockstep.sim.Generator}: the one seeded random source, every draw tagged with its
 *       {@link dev.lockstep.sim.Site}; {@link dev.lockstep.sim.Auditor}: the SHA-256 chain over every event
 *       (the 4 KiB blocks it hashed lately, kept from run to run, in {@code RememberedBlocks});
 *       {@link dev.lockstep.sim.SimClock}: simulated time, moved only by the scheduler.</li>
 *   <li>{@link dev.lockstep.sim.SimFileSystem}: files and directories with a page cache and a durable image,
 *       {@link dev.lockstep.sim.StorageFaults} (errors, and silent corruption: flipped bits, misdirected writes),
 *       failed syncs under a {@link dev.lockstep.sim.SyncFailureModel}
 *       and crashes under a {@link dev.lockstep.sim.CrashPolicy}; its model is in {@code FsNodes} (paths and
 *       nodes), {@code PageCache} (syncs, failed syncs, sectors) and {@code CrashRecovery}.</li>
 *   <li>{@link dev.lockstep.sim.SimNetwork}: simulated hosts, links with latency and jitter, partitions and
 *       resets ({@link dev.lockstep.sim.LinkProfile}, {@link dev.lockstep.sim.NetworkConfig}); a socket's state is
 *       {@code SimSocket}, links and partitioned directions {@code NetworkTopology}.</li>
 *   <li>{@link dev.lockstep.sim.SimKernel}, {@link dev.lockstep.sim.SimRing} and
 *       {@link dev.lockstep.sim.SimSystemCalls}: the implementation of {@link dev.lockstep.kernel} over the
 *       above, with the behaviour of a real kernel at configurable rates ({@link dev.lockstep.sim.KernelBehavior}):
 *       latency, completions at submission (and reads answered at the call) where io_uring tries a request at
 *       once, completion order, short transfers, spurious {@code EAGAIN}/{@code EINTR}, cancellation races,
 *       the time each synchronous call keeps its worker busy. The rings hand out native memory and take only
 *       native buffers, as io_uring does; what a run still holds at its end is named by
 *       {@link dev.lockstep.sim.SimKernel#heldResources()}.</li>
 *   <li>{@link dev.lockstep.sim.SimRunner}: the scheduler that drives every fiber on one thread (its one
 *       cross-thread piece, a continuation scheduled from outside the simulation, arrives through
 *       {@code ForeignHandoff}), the runner
 *       users start ({@link dev.lockstep.sim.SimConfig}, validated at build time with
 *       {@link dev.lockstep.sim.InvalidConfigException}), and {@code startAndRecover}, which ends a run with a crash
 *       and returns a {@link dev.lockstep.sim.Checkpoint} to continue from ({@link dev.lockstep.sim.Recovered},
 *       {@link dev.lockstep.sim.Outcome}, {@link dev.lockstep.sim.StorageImage}).</li>
 *   <li>{@link dev.lockstep.sim.SimControl}: what a test steers from inside its tasks: partitions, breaks, fault
 *       configuration, crashes, seeded randomness, and simulated time as a ticker of epoch nanoseconds.</li>
 *   <li>{@link dev.lockstep.sim.SimCluster} and {@link dev.lockstep.sim.SimNode}: simulated machines, each with its
 *       own disk, clock ({@code NodeClock}), workers and address, crashed, killed, paused, restarted and skewed one
 *       by one, or crashed at an I/O boundary it reaches ({@link dev.lockstep.sim.SimNode#crashAt}); fail-stop
 *       nodes go down when their main task throws; a node's lifetime is a {@code NodeRun} (its own kernel and
 *       engine, driven by the one scheduler).
 *       Refusals are typed: {@link dev.lockstep.sim.UnknownNodeException},
 *       {@link dev.lockstep.sim.NodeStateException}.</li>
 *   <li>The search: {@link dev.lockstep.sim.SimSearchHooks} answers {@link dev.lockstep.Search} from a run's
 *       tasks ({@link dev.lockstep.sim.FaultPoints}; per-run state in {@code SearchState}), and what a run reached
 *       is its {@link dev.lockstep.sim.Coverage}; {@link dev.lockstep.sim.Priorities} turns on priority scheduling
 *       of fibers, and a {@link dev.lockstep.sim.DecisionChain} makes a run another's up to a draw.</li>
 *   <li>Failures: {@link dev.lockstep.sim.SimulationFailure} (stall, timeout, determinism leak) and
 *       {@link dev.lockstep.sim.ReplayNote} (the replay line attached to a task's own exception).</li>
 * </ul>
 *
 * <h2>Hosts</h2>
 * A runner's one {@link dev.lockstep.sim.SimKernel} owns the loopback range, and each simulated worker is its own
 * host: worker {@code i} is {@code 127.0.0.(i+1)}, so the traffic between workers crosses links that partitions
 * cut. All workers share the one disk, which crashes as a whole. Machines with disks, clocks and crashes of their
 * own are {@link dev.lockstep.sim.SimCluster} nodes, at {@code 10.0.0.id}.
 *
 * <p>The rule that governs every class here is determinism: same seed, same configuration and same calls give
 * the same results and the same audit digest, bit for bit. So: no wall clock, no unseeded randomness, no
 * threads, and no iteration over collections whose order depends on identity hashes (ordered maps and lists
 * only; identity maps are used for lookups alone).
 *
 * <p>Dependencies: the JDK, {@code runtime-core} ({@code dev.lockstep.kernel}, {@code dev.lockstep.engine})
 * and {@code api} ({@code dev.lockstep}).
 */
package dev.lockstep.sim;
