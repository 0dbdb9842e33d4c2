/**
 * The demo and the {@code lockstep} command line's Java side ({@link dev.lockstep.demo.Main}: {@code demo},
 * {@code explore}, {@code replay}).
 *
 * <ul>
 *   <li>{@code kv}: the durable key-value service itself, written only against {@code dev.lockstep}.</li>
 *   <li>{@link dev.lockstep.demo.LoadClient} and {@link dev.lockstep.demo.Model}: the load generator and the
 *       model that checks every read and every key after every restart (runtime-independent).</li>
 *   <li>{@link dev.lockstep.demo.UringDemo}: the service on runtime-uring in a child JVM, load, SIGKILL, restart.</li>
 *   <li>{@link dev.lockstep.demo.Scenario}: one simulated seed (lifetimes, crashes, faults, checks);
 *       {@link dev.lockstep.demo.Explorer}: the seed sweep, one simulator per core, each on a thread of this JVM;
 *       {@link dev.lockstep.demo.Workload}: the load shapes.</li>
 *   <li>{@code raft}: the replicated workload's nodes, Raft, written only against {@code dev.lockstep};
 *       {@code RaftScenario} runs one seed of a cluster of them on the simulator and {@code RaftChecker} checks
 *       Raft's safety properties as the nodes decide; {@code Scoreboard} measures how fast the sweep finds each
 *       planted bug.</li>
 * </ul>
 *
 * <p>The service and the Raft node depend on {@code dev.lockstep} only; everything else here also on runtime-uring, runtime-sim,
 * {@code dev.lockstep.testing} and HdrHistogram.
 */
package dev.lockstep.demo;
