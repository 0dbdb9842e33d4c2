/**
 * The public contract of Lockstep: what application code imports, whichever runtime runs it.
 *
 * <p>Application code is written once against {@link dev.lockstep.Context} — a {@link dev.lockstep.Spawner},
 * {@link dev.lockstep.Clock}, {@link dev.lockstep.Storage} and {@link dev.lockstep.Network} in one — and
 * started by a {@link dev.lockstep.Runner}: the io_uring runner in production, the seeded simulator under
 * test. The choice of runner is one line.
 *
 * <h2>Tasks and fibers</h2>
 * A task is plain blocking-style Java running on a <em>fiber</em>: a virtual thread whose only carrier is
 * the runtime's worker. {@link dev.lockstep.Operation#await()} parks the fiber until the result is ready;
 * called from a plain thread it parks that thread. All waiting must go through Lockstep ({@code await},
 * {@link dev.lockstep.Clock#sleep}); {@code Thread.sleep}, timed parks and monitors held across an await
 * make a simulated run nondeterministic and the simulator fails such a run.
 *
 * <h2>Threads</h2>
 * Unless a method says otherwise, it may be called from any fiber of the runtime that created the object.
 * {@link dev.lockstep.Operation} and {@link dev.lockstep.Handle} may be polled, awaited and closed from any
 * thread.
 *
 * <h2>Errors</h2>
 * Every failure is a subclass of the sealed {@link dev.lockstep.LockstepException}, unchecked, with a message
 * naming the partition, blob, offset or address involved. Bad arguments (negative offsets, overflowing
 * lengths, invalid names) are rejected at the call with {@link java.lang.IllegalArgumentException} naming
 * the value, before anything is submitted.
 *
 * <h2>Search</h2>
 * {@link dev.lockstep.Search} marks fault points and states worth reaching for the simulator's search; it is a
 * no-op in production.
 *
 * <p>This package depends on nothing but the JDK, and on {@link dev.lockstep.spi.SearchHooks}, through which
 * {@code Search} finds the runtime that answers it.
 */
package dev.lockstep;
