/**
 * The seeded deterministic simulator: what users start, configure and steer, and the run that ties the rooms
 * below together.
 *
 * <p>What lives here:
 * <ul>
 *   <li>{@link dev.lockstep.sim.SimRunner}: the runner users start ({@link dev.lockstep.sim.SimConfig}, validated at
 *       build time with {@link dev.lockstep.sim.InvalidConfigException}), and {@code startAndRecover}, which ends a
 *       run with a crash and returns a {@link dev.lockstep.sim.Checkpoint} to continue from
 *       ({@link dev.lockstep.sim.Recovered}, {@link dev.lockstep.sim.Outcome},
 *       {@link dev.lockstep.sim.StorageImage}). The run itself is {@code Simulation} (package-private): it owns
 *       the scheduler, the kernel, the clock and the audit, steps the run on one thread ({@code SimCarrier}) and
 *       fails it when a fiber waits where the simulator cannot see ({@code LeakWatch}). Its parts, package-private
 *       too: {@code StepSettler} (each fiber step settled), {@code RunConfinement} (which threads may touch the
 *       run), {@code RunCrash}, {@code RunLeaks}, {@code RunRecord} (digest, counts, replay line) and
 *       {@code RunTrace}.</li>
 *   <li>The configuration the simulated OS reads: {@link dev.lockstep.sim.StorageFaults} (errors, and silent
 *       corruption: flipped bits, misdirected writes), failed syncs under a
 *       {@link dev.lockstep.sim.SyncFailureModel}, crashes under a {@link dev.lockstep.sim.CrashPolicy} (what they
 *       did: {@link dev.lockstep.sim.CrashReport}), links ({@link dev.lockstep.sim.LinkProfile},
 *       {@link dev.lockstep.sim.NetworkConfig}) and a real kernel's behaviour at configurable rates
 *       ({@link dev.lockstep.sim.KernelBehavior}).</li>
 *   <li>{@link dev.lockstep.sim.SimControl}: what a test steers from inside its tasks: partitions, breaks, fault
 *       configuration, crashes, seeded randomness, and simulated time as a ticker of epoch nanoseconds.</li>
 *   <li>{@link dev.lockstep.sim.SimCluster} and {@link dev.lockstep.sim.SimNode}: simulated machines, each with its
 *       own disk, clock, workers and address, crashed, killed, paused, restarted and skewed one by one, or crashed
 *       at an I/O boundary it reaches ({@link dev.lockstep.sim.SimNode#crashAt}); fail-stop nodes go down when
 *       their main task throws; a node's lifetime is a {@code NodeRun} (its own kernel and engine, driven by the
 *       one scheduler). Refusals are typed: {@link dev.lockstep.sim.UnknownNodeException},
 *       {@link dev.lockstep.sim.NodeStateException}.</li>
 *   <li>The search: {@link dev.lockstep.sim.SimSearchHooks} answers {@link dev.lockstep.Search} from a run's
 *       tasks ({@link dev.lockstep.sim.FaultPoints}), and what a run reached is its
 *       {@link dev.lockstep.sim.Coverage}; {@link dev.lockstep.sim.Priorities} and
 *       {@link dev.lockstep.sim.Scheduling} choose how fibers are picked, and a
 *       {@link dev.lockstep.sim.DecisionChain} makes a run another's up to a draw.</li>
 *   <li>Failures: {@link dev.lockstep.sim.SimulationFailure} (stall, timeout, determinism leak),
 *       {@link dev.lockstep.sim.ReplayNote} (the replay line attached to a task's own exception), and
 *       {@link dev.lockstep.sim.DeterminismCheck} (one seed run twice, digests compared).</li>
 * </ul>
 *
 * <h2>Rooms</h2>
 * <ul>
 *   <li>{@code dev.lockstep.sim.os}: the simulated operating system (kernel, rings, system calls, file system and
 *       page cache, network and sockets, clocks).</li>
 *   <li>{@code dev.lockstep.sim.sched}: which fiber or worker runs next, and the hand-off from outside threads.</li>
 *   <li>{@code dev.lockstep.sim.audit}: the seeded generator and its sites, the audit chain, and a run's search
 *       state.</li>
 * </ul>
 * Only this package is the user API; the rooms are the simulator's internals (public where a type crosses from
 * one room to another, not exported by the module).
 *
 * <h2>Hosts</h2>
 * A runner's one {@link dev.lockstep.sim.os.SimKernel} owns the loopback range, and each simulated worker is its
 * own host: worker {@code i} is {@code 127.0.0.(i+1)}, so the traffic between workers crosses links that
 * partitions cut. All workers share the one disk, which crashes as a whole. Machines with disks, clocks and
 * crashes of their own are {@link dev.lockstep.sim.SimCluster} nodes, at {@code 10.0.0.id}.
 *
 * <p>The rule that governs every class here and in the rooms is determinism: same seed, same configuration and
 * same calls give the same results and the same audit digest, bit for bit. So: no wall clock, no unseeded
 * randomness, no threads, and no iteration over collections whose order depends on identity hashes (ordered maps
 * and lists only; identity maps are used for lookups alone).
 *
 * <p>Dependencies: the JDK, {@code runtime-core} ({@code dev.lockstep.kernel}, {@code dev.lockstep.engine} and its
 * rooms {@code worker}, {@code request}, {@code task}, {@code buffer}),
 * {@code api} ({@code dev.lockstep}) and the rooms.
 */
package dev.lockstep.sim;
