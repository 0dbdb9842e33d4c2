package dev.lockstep.uring;

import dev.lockstep.ReceiveLimits;
import dev.lockstep.Runner;
import dev.lockstep.Task;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.spi.MetricsSink;
import java.nio.file.Path;

/**
 * The production runner: N worker threads, each the only carrier of its fibers and the only user of its own
 * io_uring ring. Tasks the root task spawns are spread over the workers round-robin; the tasks those spawn
 * stay on their worker unless placed with {@code spawnOn} (the default placement of
 * {@link dev.lockstep.Spawner#spawn}). Cross-worker and
 * cross-thread wake-ups go through each worker's mailbox and its ring's eventfd.
 *
 * <p>Single use, like every {@link Runner}: configure with {@link #builder()}, then {@link #start} once.
 *
 * <h2>Liveness: what ring entries are for</h2>
 * A worker's ring of {@code E} entries bounds its storage requests in flight (reads, writes, syncs, which end by
 * themselves) to {@code E}, and its cancellations to {@code E}; requests beyond that wait in the worker's queue.
 * Requests that wait on a peer — receives and accepts until a peer sends or dials, sends until it reads — are
 * not bounded: any bound on them would let idle connections (clients that connect and say nothing) take it, and
 * then the worker would accept no new connection and receive on no other. So a server may hold as many idle
 * connections per worker as the process has file descriptors, each costing its request and no buffer while it
 * waits (a {@code recv} into a new array is given one of the ring's 64 buffers of 16 KiB when bytes arrive,
 * {@code IORING_REGISTER_PBUF_RING}, Linux 5.19+; on an older kernel it holds a native chunk of 16 to 64 KiB while
 * it waits; what it holds of the bytes that arrived is bounded by the runner's {@link ReceiveLimits}), and the
 * completion queue of {@code 2E} may overflow into the kernel's backlog, which the ring drains
 * ({@code IORING_FEAT_NODROP}: every kernel this runtime runs on has it). Rings below 4 entries (for tests)
 * share their entries among every request in admission order, as the engine's {@code SubmitQueues} says.
 */
public final class UringRunner implements Runner {
    /**
     * The most workers a runner takes: {@link Builder#build()} refuses more, naming the value. A worker is a
     * platform thread with a ring of its own, meant one per core; past this, starting and stopping a runner costs
     * more per worker the more there are (every worker's ring memory is released with a handshake with every live
     * thread), so thousands of workers would take minutes to start and stop where a thousand take seconds.
     */
    public static final int MAX_WORKERS = 1024;

    private final ThreadedRunner runner;
    private final int workers;
    private final int ringEntries;

    private UringRunner(Builder builder) {
        UringKernel kernel = new UringKernel(builder.receiveBuffers, builder.ringOpened);
        this.workers = builder.workers;
        this.ringEntries = builder.ringEntries;
        this.runner = new ThreadedRunner(kernel, builder.workers, builder.ringEntries,
                builder.storageRoot == null ? null : builder.storageRoot.toAbsolutePath().toString(), "uring");
        this.runner.receiveLimits(builder.receiveLimits);
        // io_uring_enter is an FFM downcall: a fiber waiting in it blocks its worker's thread, staying mounted.
        this.runner.fibersMayWaitInRing(true);
        this.runner.metrics(builder.metrics);
        UringAvailability.require();
    }

    /**
     * A builder: workers default to the available processors, 256 ring entries, no storage.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The number of workers.
     *
     * @return at least 1
     */
    public int workers() {
        return workers;
    }

    /**
     * Ring entries per worker.
     *
     * @return a power of two
     */
    public int ringEntries() {
        return ringEntries;
    }

    /**
     * Bytes of buffered receive memory the run holds now: received from peers and not yet returned by a
     * {@code recv}, and the arrays pending receives fill (see {@link ReceiveLimits}). Any thread, during or after
     * the run; after {@code start} returned, 0.
     *
     * @return bytes
     */
    public long receiveBufferBytes() {
        return runner.receiveBufferBytes();
    }

    @Override
    public <T> T start(Task<T> root) {
        return runner.start(root);
    }

    /** Configures a {@link UringRunner}; values are checked by {@link #build()}. */
    public static final class Builder {
        private int workers = Runtime.getRuntime().availableProcessors();
        private int ringEntries = 256;
        private Path storageRoot;
        private ReceiveLimits receiveLimits = ReceiveLimits.DEFAULT;
        private MetricsSink metrics = MetricsSink.NONE;
        private int receiveBuffers = UringRing.RECEIVE_BUFFERS;
        private java.util.function.Consumer<UringRing> ringOpened = ring -> { };

        private Builder() {
        }

        /**
         * Bounds the memory the run holds for received bytes, per connection and in all (see
         * {@link ReceiveLimits}); {@link ReceiveLimits#DEFAULT} unless set.
         *
         * @param value the bounds
         * @return this
         */
        public Builder receiveLimits(ReceiveLimits value) {
            this.receiveLimits = java.util.Objects.requireNonNull(value, "receiveLimits");
            return this;
        }

        /**
         * Where the run reports its meters (per worker: ring enters, requests in flight and queued, runnable
         * fibers, buffers, storage and network transfers, syncs; see {@link MetricsSink}); {@link MetricsSink#NONE}
         * unless set. The counters are kept whether or not a sink is set (plain fields, no call per event); the
         * sink only reads them. {@code lockstep-micrometer}'s {@code LockstepMetrics} binds them to Micrometer.
         *
         * @param value the sink
         * @return this
         */
        public Builder metrics(MetricsSink value) {
            this.metrics = java.util.Objects.requireNonNull(value, "metrics");
            return this;
        }

        /**
         * @param value worker threads, in {@code [1, MAX_WORKERS]}
         * @return this
         */
        public Builder workers(int value) {
            this.workers = value;
            return this;
        }

        /**
         * Receive buffers per ring that the kernel selects when data arrives (see {@code UringRing}); for tests
         * that run them out. Checked when the runner is built.
         *
         * @param value 0 (every receive brings its own buffer) or a power of two up to 32768
         * @return this
         */
        Builder receiveBuffers(int value) {
            this.receiveBuffers = value;
            return this;
        }

        /**
         * Tells {@code value} of each worker's ring as it opens, on the worker's thread; for tests that read the
         * rings' counts once the run ended.
         *
         * @param value told of each ring
         * @return this
         */
        Builder ringOpened(java.util.function.Consumer<UringRing> value) {
            this.ringOpened = java.util.Objects.requireNonNull(value, "ringOpened");
            return this;
        }

        /**
         * Ring entries per worker. They bound the storage requests in flight on a worker (more wait in the
         * worker's queue) and how many requests one turn submits; receives, accepts, sends and connects, which
         * wait on peers, are never held back by them (the liveness model in the class documentation). Below 4
         * entries, for tests, every request shares the entries in turn: with one entry, a pending accept and the
         * dial meant to satisfy it must then not be on the same worker.
         *
         * @param value ring entries per worker: a power of two in {@code [1, 32768]}
         * @return this
         */
        public Builder ringEntries(int value) {
            this.ringEntries = value;
            return this;
        }

        /**
         * @param value the storage directory (created if missing; held by one runtime at a time)
         * @return this
         */
        public Builder storage(Path value) {
            this.storageRoot = value;
            return this;
        }

        /**
         * Checks the values, then that the kernel gives this process io_uring (one small ring, opened and closed
         * at once), and builds.
         *
         * @return the runner
         * @throws IllegalArgumentException naming a bad worker count (below 1, above {@link UringRunner#MAX_WORKERS}) or ring
         *     size
         * @throws UringUnavailableException naming the cause and the fix when the kernel refuses io_uring:
         *     {@code kernel.io_uring_disabled}, a seccomp filter (Docker's default profile), a kernel without
         *     io_uring, or {@code RLIMIT_MEMLOCK} on kernels before 5.12
         * @throws UnsupportedOperationException on a platform other than Linux on x86-64 or aarch64
         */
        public UringRunner build() {
            if (workers > MAX_WORKERS) {
                throw new IllegalArgumentException("workers must be at most UringRunner.MAX_WORKERS (" + MAX_WORKERS
                        + "), was " + workers);
            }
            return new UringRunner(this);
        }
    }
}
