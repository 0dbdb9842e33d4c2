package dev.lockstep.uring;

import dev.lockstep.Runner;
import dev.lockstep.Task;
import dev.lockstep.engine.ThreadedRunner;
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
 * A worker's ring of {@code E} entries bounds its requests in flight to {@code E} (and its cancellations to
 * {@code E}), so the completion queue of {@code 2E} can never overflow; requests beyond that wait in the worker's
 * queue. Requests that wait on a peer would otherwise be able to take every entry: receives and accepts stay in
 * the kernel until a peer sends or dials, sends until it reads. So each kind has a budget: receives and accepts
 * at most {@code max(1, E/2)} in flight, sends and connects at most {@code max(1, E/4)}, and storage requests
 * (reads, writes, syncs), which end by themselves, whatever is left. For {@code E >= 4} at least {@code E/4}
 * entries are always free of network waits, and a send never waits behind a receive.
 *
 * <p>Worked example, the ring of 8: a worker with 8 idle receives has 4 of them in the kernel and 4 queued;
 * a 1-byte blob write is submitted at once into one of the 2 entries the network cannot take, and a send into
 * one of its own 2 — so two peers that both wait in receives still get each other's sends.
 * A ninth receive waits until one of the first four ends or is closed. Rings below 4 entries (for tests)
 * cannot keep all three apart; with 1 entry every request takes its turn in admission order.
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
         * in the worker's queue. Receives and accepts may hold at most half the entries, sends and connects a
         * quarter, so storage and sends keep entries of their own (the liveness model in the class
         * documentation). With one entry every request takes its turn: a pending accept and the dial meant to
         * satisfy it must then not be on the same worker.
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
         * Checks the values, then that the kernel gives this process io_uring (one small ring, opened and closed
         * at once), and builds.
         *
         * @return the runner
         * @throws IllegalArgumentException naming a bad worker count or ring size
         * @throws UringUnavailableException naming the cause and the fix when the kernel refuses io_uring:
         *     {@code kernel.io_uring_disabled}, a seccomp filter (Docker's default profile), a kernel without
         *     io_uring, or {@code RLIMIT_MEMLOCK} on kernels before 5.12
         * @throws UnsupportedOperationException on a platform other than Linux on x86-64 or aarch64
         */
        public UringRunner build() {
            return new UringRunner(this);
        }
    }
}
