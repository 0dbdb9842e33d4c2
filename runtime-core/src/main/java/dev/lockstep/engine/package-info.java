/**
 * The worker engine both runtimes share (ARCHITECTURE.md §2–§3): fibers on a worker-owned scheduler, the driver slab
 * of requests with {@link dev.lockstep.engine.WaiterId generation-tagged ids}, observers and the deferred
 * queue that keeps user callbacks outside the worker's critical section, the timer wheel, cancellation and
 * retained work, the mailbox for foreign polls and closes, worker closure, the supervision tree, and
 * {@code Storage} and {@code Network} implemented once over the kernel SPI, and each worker's buffer pool
 * ({@code WorkerBuffers}: the memory every read, write, receive and send hands the kernel).
 *
 * <p>Entry points for runtimes: {@link dev.lockstep.engine.Engine} (one runtime instance),
 * {@link dev.lockstep.engine.Worker} (one worker's state and service turn),
 * {@link dev.lockstep.engine.FiberScheduler} (who runs fibers when) and
 * {@link dev.lockstep.engine.ThreadedRunner} (one platform thread per worker).
 *
 * <p>May depend on the JDK, {@code dev.lockstep} (the API) and {@code dev.lockstep.kernel} (the SPI); never on
 * a runtime.
 */
package dev.lockstep.engine;
