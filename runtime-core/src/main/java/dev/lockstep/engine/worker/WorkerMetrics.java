package dev.lockstep.engine.worker;

import dev.lockstep.engine.EngineHooks;
import dev.lockstep.engine.request.Request;
import dev.lockstep.kernel.Errno;
import dev.lockstep.spi.Meter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One worker's counters, kept as it works and read on demand through {@link Meter}s (a {@code MetricsSink}):
 * ring enters, submission-queue-full flushes, storage and network transfers, syncs and their latency. The gauges
 * (requests in flight and queued, runnable fibers, buffers) read the worker's own state when asked.
 *
 * <h2>Threads</h2>
 * Single writer: every count is added by the thread that runs the worker (its own thread in runtime-uring, the
 * simulator's thread there), at the places that already own the worker's state: a completion in the driver, a
 * turn of the ring, a read answered at the call. Readers are any thread. Each count is written with an opaque
 * store and read with an opaque load: a reader sees each count whole (never half a long) and each one only grows,
 * with no fence on the worker's path (on x86 and ARM an opaque store is a plain store). A reader may see one count
 * newer than another; meters are recent values, not a snapshot, as {@link Meter} says. Runnable fibers are the
 * exception: the runner writes that gauge from whichever thread schedules a fiber (see {@link #foreignQueued()}).
 *
 * <h2>Gauges</h2>
 * The gauges of requests in flight and queued, live fibers and outstanding buffers read the worker's own fields
 * ({@code Driver.inFlight}, {@code SubmitQueues.queued}, the driver's waiting lists' sizes,
 * {@code WorkerBuffers.outstanding}), which the worker's thread writes with plain stores on its hot path. A
 * reader on another thread reads them racily, on purpose: a gauge is a sample, and the Java memory model gives a
 * racy read of an {@code int} some value that was written to it (no tearing, nothing out of thin air), so the
 * reader sees a count the worker actually had — never negative, possibly not the latest. Each such read follows
 * the volatile read of {@link #worker}, so it is a fresh load on every sample, not one hoisted out of a reader's
 * loop. Fences on the worker's path to make these exact would cost every request and buy nothing a sample needs.
 *
 * <p>Nothing here reads a clock or draws: in the simulator, counting and reading leave the run's digest alone.
 */
public final class WorkerMetrics {
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);

    static final int ENTERS = 0;
    static final int SUBMISSION_QUEUE_FULL = 1;
    static final int READS = 2;
    static final int READ_BYTES = 3;
    static final int WRITES = 4;
    static final int WRITE_BYTES = 5;
    static final int SYNCS = 6;
    static final int SYNC_NANOS = 7;
    static final int SENT_BYTES = 8;
    static final int RECEIVED_BYTES = 9;
    static final int ACCEPTS = 10;
    static final int CONNECTS = 11;
    static final int RESETS = 12;
    static final int BUFFER_BYTES = 13;
    private static final int COUNT_KINDS = 14;

    /** What a request is, for counting its completions ({@link Request#meterKind()}). */
    public enum Kind { OTHER, READ, WRITE, SYNC, SEND, RECEIVE, ACCEPT, CONNECT }

    private final int index;
    private final long[] counts = new long[COUNT_KINDS];
    /**
     * Fibers of this worker queued to run by other threads and not yet run: added to by any thread (a wake from
     * another worker or a plain thread, {@link #foreignQueued()}), taken from by the worker's loop
     * ({@link #foreignRan(int)}). The loop's own queue is {@link #localRunnable}, written only by the worker's
     * thread.
     */
    private final java.util.concurrent.atomic.AtomicInteger foreignQueued =
            new java.util.concurrent.atomic.AtomicInteger();
    /** See {@link #localRunnable(int)}: opaque stores by the runner's thread, opaque loads by readers. */
    private int localRunnable;
    private static final VarHandle LOCAL_RUNNABLE;

    static {
        try {
            LOCAL_RUNNABLE = MethodHandles.lookup().findVarHandle(WorkerMetrics.class, "localRunnable", int.class);
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }
    /** The worker, once created, until its run ended; read by gauges on any thread. */
    private volatile Worker worker;

    public WorkerMetrics(int index) {
        this.index = index;
    }

    public void attach(Worker created) {
        worker = created;
    }

    public void detach() {
        Worker retired = worker;
        if (retired != null) {
            overflowsKept = retired.ring().completionOverflows();
        }
        worker = null;
        LOCAL_RUNNABLE.setOpaque(this, 0);
        foreignQueued.set(0);
    }

    private void add(int kind, long delta) {
        COUNTS.setOpaque(counts, kind, (long) COUNTS.getOpaque(counts, kind) + delta);
    }

    /**
     * A count, read now.
     *
     * @param kind one of this class's count indexes
     * @return the count
     */
    long read(int kind) {
        return (long) COUNTS.getOpaque(counts, kind);
    }

    /** The worker entered its ring (one {@code Ring.enter}: at least one {@code io_uring_enter}). */
    void entered() {
        add(ENTERS, 1);
    }

    /** The ring refused a submission because its submission queue was full: the next enter flushes it. */
    public void submissionQueueFull() {
        add(SUBMISSION_QUEUE_FULL, 1);
    }

    /**
     * The runner reports how many of this worker's fibers are queued to run on its own queue: runtime-uring's
     * loop once per turn, the simulator's scheduler as it queues and takes them (through
     * {@link EngineHooks#localRunnable}). Only the thread that owns that queue calls this.
     *
     * @param fibers the count
     */
    public void localRunnable(int fibers) {
        LOCAL_RUNNABLE.setOpaque(this, fibers);
    }

    /**
     * A thread other than the worker's own queued one of its fibers on the worker's shared queue: called before
     * the add, so the worker's loop, which subtracts what it ran ({@link #foreignRan}), never takes the count below
     * the fibers still queued. Any thread; an atomic increment.
     */
    public void foreignQueued() {
        foreignQueued.incrementAndGet();
    }

    /**
     * The worker's loop ran {@code fibers} continuations from its shared queue. The worker's thread; an atomic
     * add, since other threads add to the count meanwhile ({@link #foreignQueued()}).
     *
     * @param fibers the continuations it ran, at least 1
     */
    public void foreignRan(int fibers) {
        foreignQueued.addAndGet(-fibers);
    }

    /**
     * One completion of a request of {@code kind} with the kernel's {@code result}; {@code done} when it ended the
     * request (a short transfer is resubmitted, each part counted as it completes).
     */
    public void completed(Kind kind, int result, boolean done) {
        switch (kind) {
            case READ -> {
                if (result > 0) {
                    add(READ_BYTES, result);
                }
                if (done) {
                    add(READS, 1);
                }
            }
            case WRITE -> {
                if (result > 0) {
                    add(WRITE_BYTES, result);
                }
                if (done) {
                    add(WRITES, 1);
                }
            }
            case SEND, RECEIVE -> {
                if (result > 0) {
                    add(kind == Kind.SEND ? SENT_BYTES : RECEIVED_BYTES, result);
                } else if (result == -Errno.ECONNRESET || result == -Errno.EPIPE) {
                    add(RESETS, 1);
                }
            }
            case ACCEPT -> {
                if (result >= 0) {
                    add(ACCEPTS, 1);
                }
            }
            case CONNECT -> {
                if (result == 0 && done) {
                    add(CONNECTS, 1);
                }
            }
            case SYNC, OTHER -> { }
        }
    }

    /** A read the page cache answered at the call, without the ring. */
    public void readInPlace(int bytes) {
        add(READ_BYTES, bytes);
        add(READS, 1);
    }

    /** A flush ({@code fdatasync}) completed, {@code nanos} after it was submitted (on the ring's clock). */
    public void synced(long nanos) {
        add(SYNCS, 1);
        add(SYNC_NANOS, Math.max(0, nanos));
    }

    /** The worker's buffer pool reserved ({@code > 0}) or released ({@code < 0}) native memory. */
    public void bufferBytes(long delta) {
        add(BUFFER_BYTES, delta);
    }

    /**
     * This worker's meters, tagged with its index and {@code tags}.
     *
     * @param tags tags every meter carries (the simulator's node), or none
     * @return the meters
     */
    public List<Meter> meters(Map<String, String> tags) {
        List<Meter> meters = new ArrayList<>();
        Map<String, String> worker = with(tags, "worker", Integer.toString(index));
        meters.add(new Meter.Counter("lockstep.ring.enters", "Enters of the worker's ring: each submits what was"
                + " staged and reaps completions (one io_uring_enter, more when interrupted or flushing overflow)",
                "calls", worker, () -> read(ENTERS)));
        meters.add(new Meter.Counter("lockstep.ring.submission.queue.full", "Submissions the ring refused because"
                + " its submission queue was full; the next enter flushes the queue", "events", worker,
                () -> read(SUBMISSION_QUEUE_FULL)));
        meters.add(new Meter.Counter("lockstep.ring.completion.overflows", "Times the kernel's completion queue"
                + " overflowed into its backlog, which the ring then drained", "events", worker,
                () -> gauge(w -> w.ring().completionOverflows(), () -> overflowsKept)));
        meters.add(new Meter.Gauge("lockstep.requests.inflight", "Requests submitted to the kernel and not yet"
                + " completed", "requests", worker, () -> gauge(Worker::inFlightRequests, () -> 0)));
        meters.add(new Meter.Gauge("lockstep.requests.queued", "Requests admitted and waiting for the ring, a"
                + " durability permit or their partition's metadata lane", "requests", worker,
                () -> gauge(Worker::queuedRequests, () -> 0)));
        meters.add(new Meter.Gauge("lockstep.fibers.runnable", "Fibers of the worker queued to run", "fibers",
                worker, () -> this.worker == null ? 0
                        : (int) LOCAL_RUNNABLE.getOpaque(this) + Math.max(0, foreignQueued.get())));
        meters.add(new Meter.Gauge("lockstep.fibers.live", "Fibers whose home is the worker and that have not"
                + " finished", "fibers", worker, () -> gauge(Worker::liveFibers, () -> 0)));
        meters.add(new Meter.Gauge("lockstep.buffers.outstanding", "Buffers of the worker's pool handed to tasks"
                + " and not yet closed", "buffers", worker, () -> gauge(w -> w.buffers().outstanding(), () -> 0)));
        meters.add(new Meter.Gauge("lockstep.buffers.reserved", "Native memory the worker's buffer pool has"
                + " reserved", "bytes", worker, () -> this.worker == null ? 0 : read(BUFFER_BYTES)));
        meters.add(new Meter.Counter("lockstep.storage.operations", "Storage reads and writes completed (succeeded"
                + " or failed)", "operations", with(worker, "kind", "read"), () -> read(READS)));
        meters.add(new Meter.Counter("lockstep.storage.operations", "Storage reads and writes completed (succeeded"
                + " or failed)", "operations", with(worker, "kind", "write"), () -> read(WRITES)));
        meters.add(new Meter.Counter("lockstep.storage.bytes", "Bytes read from and written to blobs",
                "bytes", with(worker, "kind", "read"), () -> read(READ_BYTES)));
        meters.add(new Meter.Counter("lockstep.storage.bytes", "Bytes read from and written to blobs",
                "bytes", with(worker, "kind", "write"), () -> read(WRITE_BYTES)));
        meters.add(new Meter.Timer("lockstep.storage.sync", "Flushes of blobs to the device (fdatasync), from"
                + " submission to completion", worker, () -> read(SYNCS), () -> read(SYNC_NANOS)));
        meters.add(new Meter.Counter("lockstep.network.bytes", "Bytes sent to and received from peers", "bytes",
                with(worker, "kind", "sent"), () -> read(SENT_BYTES)));
        meters.add(new Meter.Counter("lockstep.network.bytes", "Bytes sent to and received from peers", "bytes",
                with(worker, "kind", "received"), () -> read(RECEIVED_BYTES)));
        meters.add(new Meter.Counter("lockstep.network.connections", "Connections accepted and dialled",
                "connections", with(worker, "kind", "accepted"), () -> read(ACCEPTS)));
        meters.add(new Meter.Counter("lockstep.network.connections", "Connections accepted and dialled",
                "connections", with(worker, "kind", "dialled"), () -> read(CONNECTS)));
        meters.add(new Meter.Counter("lockstep.network.resets", "Sends and receives that found the connection"
                + " reset by the peer (ECONNRESET, EPIPE)", "events", worker, () -> read(RESETS)));
        return meters;
    }

    /** Completion-queue overflows of the ring, kept when the run ends and the worker lets the ring go. */
    private volatile long overflowsKept;

    private long gauge(java.util.function.ToLongFunction<Worker> read, LongSupplier whenDetached) {
        Worker current = worker;
        return current == null ? whenDetached.getAsLong() : read.applyAsLong(current);
    }

    private static Map<String, String> with(Map<String, String> tags, String key, String value) {
        java.util.TreeMap<String, String> all = new java.util.TreeMap<>(tags);
        all.put(key, value);
        return all;
    }
}
