/**
 * Fibers and supervision: the virtual threads a worker carries, and the tree of tasks they run.
 *
 * <ul>
 *   <li>{@link dev.lockstep.engine.task.Fiber}, {@link dev.lockstep.engine.task.Fibers} (the current fiber,
 *       parking on an operation), {@link dev.lockstep.engine.task.FiberScheduler} (who runs fibers when),
 *       {@code FiberAwaiter} (the API's {@code Awaiter} service), {@code LiveFibers}, {@code FiberNames}.</li>
 *   <li>{@link dev.lockstep.engine.task.JdkInternals}: every touch of the JDK's internals (the virtual-thread
 *       scheduler hook, a virtual thread's state and park timer, the carrier, thread-local maps); nothing else in
 *       Lockstep reflects on the JDK.</li>
 *   <li>Supervision: {@code TaskFibers} (starting and ending a task's fiber in order), {@code TaskHandle},
 *       {@code Supervision} (the tree), {@code StopState} (stop codes and signals), {@code WaitList} (wakers
 *       waiting on runtime-wide state).</li>
 * </ul>
 *
 * <p>May depend on the JDK, the API, {@code dev.lockstep.engine} (the engine a task is spawned in),
 * {@code engine.worker} (a fiber's home worker and its critical section) and {@code engine.request} (the
 * registration a fiber reuses). Never the buffers or {@code engine.io}.
 */
package dev.lockstep.engine.task;
