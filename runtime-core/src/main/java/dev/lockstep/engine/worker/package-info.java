/**
 * One worker: its state and the turns that work on it.
 *
 * <ul>
 *   <li>{@link dev.lockstep.engine.worker.Worker}: the state a worker owns (its driver, timer heap, mailbox,
 *       cached clock, closing flag, deferred queue, buffers, request recyclers) and "the current worker"
 *       ({@code current}, and {@code requireCurrent} for the calls only a task may make).</li>
 *   <li>Its parts: {@code CriticalSection} (the borrow, and the guard against parking inside it),
 *       {@code WorkerAdmission} (requests admitted, refused once closing, closed at once or through the mailbox),
 *       {@code ServiceTurn} (the thread's turns), {@code InlineTurns} (turns its fibers make themselves),
 *       {@code WorkerClosure} (retiring), {@code DeferredQueue} (callbacks run after the borrow ends),
 *       {@code Mailbox} (foreign polls and closes).</li>
 *   <li>{@code WorkerMetrics}: the worker's counters and gauges; {@code RetiredRequests}, {@code Recycler} and
 *       {@code Spare}: retired requests kept for the next operation of their kind.</li>
 * </ul>
 *
 * <p>May depend on the JDK, the API, the kernel SPI, {@code dev.lockstep.engine} (the engine a worker belongs
 * to), {@code engine.request} (the driver a worker owns), {@code engine.task} (the fibers it carries) and
 * {@code engine.buffer} (its buffer pool). One edge runs up into {@code engine.io}: the worker's recyclers are typed
 * by the request kinds they keep ({@code BlobReadRequest}, {@code BlobWriteRequest}, {@code EngineNetwork}'s send).
 * {@code engine.request} and {@code engine.task} depend on this room in turn (a request and a fiber name their
 * worker): the cycle is real and stops at these three rooms.
 */
package dev.lockstep.engine.worker;
