/**
 * The worker engine both runtimes share (ARCHITECTURE.md §3), and its entry points: what a runtime builds and
 * drives.
 *
 * <ul>
 *   <li>{@link dev.lockstep.engine.Engine}: one runtime instance — its workers, the supervision tree, the stop
 *       state, the fds a run owns, and the spawning of root tasks.</li>
 *   <li>{@link dev.lockstep.engine.EngineContext}: the {@code Context} a task holds (clock, storage, network,
 *       spawner).</li>
 *   <li>{@link dev.lockstep.engine.EngineHooks}: what the simulator plugs into the engine.</li>
 *   <li>{@link dev.lockstep.engine.ThreadedRunner}: one platform thread per worker, and its JFR events
 *       ({@code ForeignResumeEvent}, {@code WorkerStallEvent}).</li>
 * </ul>
 *
 * <p>The rest lives in rooms below: {@code engine.worker} (one worker's state and turns), {@code engine.request}
 * (one request's life in the driver), {@code engine.task} (fibers and supervision), {@code engine.buffer} (the
 * memory handed to the kernel) and {@code engine.io} ({@code Storage} and {@code Network} over the kernel SPI).
 * The worker, its requests and its fibers name each other (a worker owns a driver and carries fibers; a request
 * and a fiber name their worker), so those three rooms form one cycle; the rooms' package docs say which edges run
 * back, and demo's {@code LayeringTest} holds each room to its list.
 *
 * <p>May depend on the JDK, {@code jdk.jfr}, {@code dev.lockstep} (the API and {@code sync}, {@code spi}),
 * {@code dev.lockstep.kernel} (the SPI) and every engine room; never on a runtime.
 */
package dev.lockstep.engine;
