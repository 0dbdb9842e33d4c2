/**
 * Task primitives whose waiting goes through Lockstep, so that they work the same on every runtime and keep a
 * simulated run deterministic: {@link dev.lockstep.sync.Channel} (bounded, many producers and consumers),
 * {@link dev.lockstep.sync.OneShot} (a value set once), {@link dev.lockstep.sync.Mutex} and
 * {@link dev.lockstep.sync.Semaphore} (held across awaits), {@link dev.lockstep.sync.Select} (race operations, the
 * first to complete wins and the others are closed), {@link dev.lockstep.sync.Join} (wait for a group of tasks) and
 * {@link dev.lockstep.sync.Futures} (to and from {@code CompletableFuture}).
 *
 * <p>Each waiting call returns an {@link dev.lockstep.Operation}: awaited, polled, closed, raced and bounded by
 * {@code Clock.timeout} like any I/O. They replace what the simulator must refuse — JDK locks, monitors held across
 * an await, {@code BlockingQueue.take}, {@code CompletableFuture.join} — which park a worker outside the seed.
 * Their {@code await} parks the fiber through the runtime's {@link dev.lockstep.spi.Awaiter}.
 *
 * <p>They are hand-written rather than taken from a library because their waiting must be Lockstep's own
 * ({@link dev.lockstep.Waker}s woken outside their locks, no JDK parking, and {@link dev.lockstep.sync.FiberSafeLock}s
 * for which no fiber queues), which no general-purpose library
 * offers. Depends on {@code dev.lockstep} and the JDK only.
 */
package dev.lockstep.sync;
