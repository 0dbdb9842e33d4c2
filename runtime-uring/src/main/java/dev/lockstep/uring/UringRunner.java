package dev.lockstep.uring;

import dev.lockstep.Runner;
import dev.lockstep.Task;
import dev.lockstep.engine.ThreadedRunner;
import java.nio.file.Path;

/**
 * The production runner: N worker threads, each the only carrier of its fibers and the only user of its own
 * io_uring ring. Tasks spawn on the current worker unless placed with {@code spawnOn}. Cross-worker and
 * cross-thread wake-ups go through each worker's mailbox and its ring's eventfd.
 *
 * <p>Single use, like every {@link Runner}: configure with {@link #builder()}, then {@link #start} once.
 */
public final class UringRunner implements Runner {
    private final ThreadedRunner runner;
    private final int workers;
    private final int ringEntries;

    private UringRunner(Builder builder) {
        UringKernel kernel = new UringKernel();
        this.workers = builder.workers;
        this.ringEntries = builder.ringEntries;
        this.runner = new ThreadedRunner(kernel, builder.workers, builder.ringEntries,
                builder.storageRoot == null ? null : builder.storageRoot.toAbsolutePath().toString(), "uring");
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

    @Override
    public <T> T start(Task<T> root) {
        return runner.start(root);
    }

    /** Configures a {@link UringRunner}; values are checked by {@link #build()}. */
    public static final class Builder {
        private int workers = Runtime.getRuntime().availableProcessors();
        private int ringEntries = 256;
        private Path storageRoot;

        private Builder() {
        }

        /**
         * @param value worker threads, {@code >= 1}
         * @return this
         */
        public Builder workers(int value) {
            this.workers = value;
            return this;
        }

        /**
         * Ring entries per worker. They bound requests in flight on a worker, not requests admitted: more wait
         * in the worker's queue. An accept or a receive holds its entry until its peer acts, so a worker whose
         * entries are all taken by such waits runs nothing else from its ring until one ends (timers, and
         * closing the waiting operations, still work). With one entry, for example, a pending accept and the
         * dial meant to satisfy it must not be on the same worker.
         *
         * @param value ring entries per worker: a power of two in {@code [1, 32768]}; bounds requests in flight
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
         * Checks the values and builds.
         *
         * @return the runner
         * @throws IllegalArgumentException naming a bad worker count or ring size
         */
        public UringRunner build() {
            return new UringRunner(this);
        }
    }
}
