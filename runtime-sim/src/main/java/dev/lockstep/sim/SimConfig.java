package dev.lockstep.sim;

import java.time.Duration;
import java.time.Instant;

/**
 * Everything that, with the seed, decides a simulated run. Built with {@link #builder()}; every field is
 * validated when {@link Builder#build()} runs, with an {@link IllegalArgumentException} naming the field and
 * its value.
 *
 * @param seed the seed of the one generator
 * @param workers simulated workers, {@code >= 1}
 * @param ringEntries ring size per worker, a power of two
 * @param startNanos simulated start time, epoch nanoseconds, not before the epoch
 * @param timeLimitNanos simulated time a run may cover before it fails as timed out
 * @param storageFaults storage fault rates and capacity
 * @param kernelBehavior ring latency, short transfers, spurious errors, cancel races
 * @param storageRoot the storage directory inside the simulated file system
 */
public record SimConfig(long seed, int workers, int ringEntries, long startNanos, long timeLimitNanos,
                        StorageFaults storageFaults, KernelBehavior kernelBehavior, String storageRoot) {

    /**
     * A builder with the defaults: seed 42, 1 worker, 64 ring entries, start at 2026-01-01T00:00:00Z, a time
     * limit of one simulated hour, no faults.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The line that reruns a run with this configuration.
     *
     * @return the replay line
     */
    public String replayLine() {
        return "replay: SimRunner.of(SimConfig.builder().seed(" + seed + "L).workers(" + workers + ").ringEntries("
                + ringEntries + ").startNanos(" + startNanos + "L).timeLimit(Duration.ofNanos(" + timeLimitNanos
                + "L)).build())  [config " + Integer.toHexString(hashCode()) + "]";
    }

    /** Builds a {@link SimConfig}. */
    public static final class Builder {
        private long seed = 42;
        private int workers = 1;
        private int ringEntries = 64;
        private long startNanos = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;
        private long timeLimitNanos = Duration.ofHours(1).toNanos();
        private StorageFaults storageFaults = StorageFaults.NONE;
        private KernelBehavior kernelBehavior = KernelBehavior.DEFAULT;
        private String storageRoot = "/lockstep";

        private Builder() {
        }

        /** @param value the seed @return this */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /** @param value simulated workers @return this */
        public Builder workers(int value) {
            this.workers = value;
            return this;
        }

        /** @param value ring size per worker @return this */
        public Builder ringEntries(int value) {
            this.ringEntries = value;
            return this;
        }

        /** @param value simulated start, epoch nanoseconds @return this */
        public Builder startNanos(long value) {
            this.startNanos = value;
            return this;
        }

        /** @param value simulated start @return this */
        public Builder start(Instant value) {
            if (value.isBefore(Instant.EPOCH)) {
                throw new IllegalArgumentException("start must not be before the epoch, was " + value);
            }
            return startNanos(Math.multiplyExact(value.getEpochSecond(), 1_000_000_000L) + value.getNano());
        }

        /** @param value the simulated time limit @return this */
        public Builder timeLimit(Duration value) {
            this.timeLimitNanos = value.toNanos();
            return this;
        }

        /** @param value storage faults @return this */
        public Builder storageFaults(StorageFaults value) {
            this.storageFaults = value;
            return this;
        }

        /** @param value kernel behaviour @return this */
        public Builder kernelBehavior(KernelBehavior value) {
            this.kernelBehavior = value;
            return this;
        }

        /**
         * Checks every field and builds.
         *
         * @return the configuration
         * @throws IllegalArgumentException naming the first bad field and its value
         */
        public SimConfig build() {
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be at least 1, was " + workers);
            }
            if (ringEntries < 1 || Integer.bitCount(ringEntries) != 1 || ringEntries > kernelBehavior.maxRingEntries()) {
                throw new IllegalArgumentException("ringEntries must be a power of two between 1 and "
                        + kernelBehavior.maxRingEntries() + ", was " + ringEntries);
            }
            if (startNanos < 0) {
                throw new IllegalArgumentException("startNanos must not be before the epoch, was " + startNanos);
            }
            if (timeLimitNanos <= 0) {
                throw new IllegalArgumentException("timeLimit must be positive, was " + Duration.ofNanos(timeLimitNanos));
            }
            java.util.Objects.requireNonNull(storageFaults, "storageFaults");
            java.util.Objects.requireNonNull(kernelBehavior, "kernelBehavior");
            return new SimConfig(seed, workers, ringEntries, startNanos, timeLimitNanos, storageFaults, kernelBehavior,
                    storageRoot);
        }
    }
}
