/**
 * The simulator's scheduling: which fiber or worker service turn runs next, and when simulated time moves.
 *
 * <ul>
 *   <li>{@link dev.lockstep.sim.sched.Scheduler}: the queue of runnable fibers, workers' service turns and timer
 *       deadlines; each step is one seeded choice (uniform, or by {@link dev.lockstep.sim.Priorities}), recorded
 *       in the audit.</li>
 *   <li>{@code PriorityChoice}: the priority scheduling of fibers ({@link dev.lockstep.sim.Priorities}): initial
 *       priorities, change points, and the fiber a prioritized step runs.</li>
 *   <li>{@code WorkerSlots}: which worker slots run (halted or not) and which a step looks at (the live ones,
 *       retired ones left out).</li>
 *   <li>{@code ForeignHandoff}: the one cross-thread piece, a continuation scheduled from a thread outside the
 *       simulation, queued by the next step.</li>
 * </ul>
 *
 * <p>Dependencies: the JDK, the engine ({@code dev.lockstep.engine} and its rooms {@code task} and
 * {@code worker}), {@code dev.lockstep.sim.os} (the kernel's rings and clock), {@code dev.lockstep.sim.audit},
 * and the scheduling configuration of {@code dev.lockstep.sim} ({@code Scheduling}, {@code Priorities}). Not the
 * run: the run drives the scheduler.
 */
package dev.lockstep.sim.sched;
