package dev.lockstep.sim;

import dev.lockstep.sim.os.SimKernel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

/**
 * Everything that, with the seed, decides a simulated run. Built with {@link #builder()}; every field is
 * validated when {@link Builder#build()} runs, with an {@link InvalidConfigException} naming the field and its
 * value (the nested configurations, {@link StorageFaults}, {@link KernelBehavior}, {@link NetworkConfig} and
 * {@link LinkProfile}, are validated when they are made, with the same exception).
 *
 * @param seed the seed of the one generator
 * @param workers simulated workers, {@code >= 1}; worker {@code i} is the simulated host
 *                {@code 127.0.0.(i+1)} (see {@link SimControl#host(int)})
 * @param ringEntries ring size per worker, a power of two in {@code [1, kernelBehavior.maxRingEntries()]}
 * @param startNanos simulated start time, epoch nanoseconds, not before the epoch and not after
 *                   {@link #LATEST_START} (2200-01-01T00:00:00Z): the clock counts nanoseconds in a long, which
 *                   ends in 2262, and a start near that end would make the deadlines of ordinary sleeps and
 *                   timeouts overflow
 * @param timeLimitNanos simulated time one run may cover before it fails as timed out, {@code > 0};
 *                       {@code Long.MAX_VALUE} for no limit
 * @param storageFaults storage fault rates and capacity, in force from the moment the root task starts
 * @param kernelBehavior ring latency, short transfers, spurious errors, cancel races
 * @param network link delays, connect timeout across partitions, random connection breaks
 * @param crashPolicy what a crash does with unsynced writes ({@link SimRunner#startAndRecover})
 * @param crashWithinNanos for {@link SimRunner#startAndRecover}: when {@code > 0}, the run is cut by a crash at a
 *                         seeded simulated time within this long after its start (unless the task ends or
 *                         crashes first); 0 for no seeded crash point
 * @param storageRoot the storage directory inside the simulated file system, absolute
 * @param failOnLeaks whether a run that ends holding fds, rings, ring buffers or fibers it did not start with
 *                    fails with a {@link SimulationFailure} naming each and the source line that created it.
 *                    Either way {@link SimRunner#leaks()} lists them after the run
 * @param scheduling how fiber steps and workers' service turns are ordered; {@link Scheduling#INTERLEAVED} by
 *                   default
 * @param openFileLimit the process's open-file limit, as {@code ulimit -n} sets it: a call that would make a
 *                      descriptor numbered at or past it ({@code open}, {@code socket}, an accept) fails with
 *                      {@code EMFILE}, which the runtime reports as the call's typed error (a {@link
 *                      dev.lockstep.StorageIoException} of an open, a {@link dev.lockstep.ConnectionFailedException}
 *                      of an accept or a dial). Above {@link SimKernel#FIRST_FD}; {@link SimKernel#MAX_FDS} by
 *                      default, which a run does not meet. It counts the descriptors the run opens: the
 *                      simulated rings take none (on Linux each of runtime-uring's rings takes two, the ring's
 *                      and its eventfd's, and the JVM holds its own)
 * @param faultPoints how often application fault points ({@link dev.lockstep.Search#faultPoint}) fire;
 *                    {@link FaultPoints#DEFAULT} by default
 * @param priorities priority scheduling of fibers ({@link Priorities}); {@link Priorities#OFF} by default
 * @param decisionChain where draws switch to other seeds ({@link DecisionChain}, what the guided explorer
 *                      branches with); {@link DecisionChain#NONE} by default
 * @param receiveLimits bounds on the memory the run (each node of a {@link SimCluster}) holds for received bytes,
 *                      per connection and in all, as {@code UringRunner.Builder.receiveLimits} sets them;
 *                      {@link dev.lockstep.ReceiveLimits#DEFAULT} by default. They draw nothing from the seed
 */
public record SimConfig(long seed, int workers, int ringEntries, long startNanos, long timeLimitNanos,
                        StorageFaults storageFaults, KernelBehavior kernelBehavior, NetworkConfig network,
                        CrashPolicy crashPolicy, long crashWithinNanos, String storageRoot, boolean failOnLeaks,
                        Scheduling scheduling, int openFileLimit, FaultPoints faultPoints, Priorities priorities,
                        DecisionChain decisionChain, dev.lockstep.ReceiveLimits receiveLimits) {

    /** The default simulated start: 2026-01-01T00:00:00Z. */
    public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");
    /** The latest simulated start: 62 years of simulated time remain before epoch nanoseconds overflow a long. */
    public static final Instant LATEST_START = Instant.parse("2200-01-01T00:00:00Z");
    private static final long LATEST_START_NANOS = LATEST_START.getEpochSecond() * 1_000_000_000L;
    /** The default storage root. */
    public static final String DEFAULT_STORAGE_ROOT = "/lockstep";
    /**
     * Descriptors below this are taken before a run opens any (standard input, output and error), so an
     * {@link #openFileLimit} is above it.
     */
    public static final int RESERVED_FDS = SimKernel.FIRST_FD;
    /** The largest {@link #openFileLimit}, and the default: a run does not meet it. */
    public static final int MAX_OPEN_FILE_LIMIT = SimKernel.MAX_FDS;

    /**
     * Validates every field.
     *
     * @throws InvalidConfigException naming the first bad field and its value
     */
    public SimConfig {
        if (workers < 1) {
            throw invalid("workers", "must be at least 1, was " + workers);
        }
        if (workers > 65_000) {
            throw invalid("workers", "must be at most 65000 (one 127.0.x.y host each), was " + workers);
        }
        if (kernelBehavior == null) {
            throw invalid("kernelBehavior", "must not be null");
        }
        if (ringEntries < 1 || Integer.bitCount(ringEntries) != 1 || ringEntries > kernelBehavior.maxRingEntries()) {
            throw invalid("ringEntries", "must be a power of two between 1 and " + kernelBehavior.maxRingEntries()
                    + ", was " + ringEntries);
        }
        if (startNanos < 0) {
            throw invalid("startNanos", "must not be before the epoch, was " + startNanos + " ("
                    + Instant.EPOCH.plusNanos(startNanos) + ")");
        }
        if (startNanos > LATEST_START_NANOS) {
            throw invalid("startNanos", "must not be after " + LATEST_START + " (" + LATEST_START_NANOS
                    + "), so that deadlines after it still fit in epoch nanoseconds, was " + startNanos);
        }
        if (timeLimitNanos <= 0) {
            throw invalid("timeLimit", "must be positive, was " + Duration.ofNanos(timeLimitNanos));
        }
        if (crashWithinNanos < 0) {
            throw invalid("crashWithin", "must not be negative, was " + Duration.ofNanos(crashWithinNanos));
        }
        if (storageFaults == null) {
            throw invalid("storageFaults", "must not be null");
        }
        if (network == null) {
            throw invalid("network", "must not be null");
        }
        if (crashPolicy == null) {
            throw invalid("crashPolicy", "must not be null");
        }
        if (scheduling == null) {
            throw invalid("scheduling", "must not be null");
        }
        if (openFileLimit <= SimKernel.FIRST_FD || openFileLimit > SimKernel.MAX_FDS) {
            throw invalid("openFileLimit", "must be above " + SimKernel.FIRST_FD + " (descriptors 0 to "
                    + (SimKernel.FIRST_FD - 1) + " are taken) and at most " + SimKernel.MAX_FDS + ", was "
                    + openFileLimit);
        }
        if (faultPoints == null) {
            throw invalid("faultPoints", "must not be null");
        }
        if (priorities == null) {
            throw invalid("priorities", "must not be null");
        }
        if (decisionChain == null) {
            throw invalid("decisionChain", "must not be null");
        }
        if (receiveLimits == null) {
            throw invalid("receiveLimits", "must not be null");
        }
        if (storageRoot == null || !storageRoot.startsWith("/") || storageRoot.length() < 2) {
            throw invalid("storageRoot", "must be an absolute path below /, was "
                    + (storageRoot == null ? "null" : "'" + storageRoot + "'"));
        }
    }

    private static InvalidConfigException invalid(String field, String problem) {
        return new InvalidConfigException("SimConfig." + field, "SimConfig." + field + " " + problem);
    }

    /**
     * A builder with the defaults: seed 42, 1 worker, 64 ring entries, start at 2026-01-01T00:00:00Z, a time
     * limit of one simulated hour, no storage faults, {@link KernelBehavior#DEFAULT},
     * {@link NetworkConfig#DEFAULT}, crash policy {@link CrashPolicy#ALL_LOST}, no seeded crash point,
     * {@link Scheduling#INTERLEAVED} scheduling, {@link FaultPoints#DEFAULT}, {@link Priorities#OFF}, no
     * {@link DecisionChain}.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from this configuration.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.seed = seed;
        builder.workers = workers;
        builder.ringEntries = ringEntries;
        builder.startNanos = startNanos;
        builder.start = null;
        builder.timeLimitNanos = timeLimitNanos;
        builder.storageFaults = storageFaults;
        builder.kernelBehavior = kernelBehavior;
        builder.network = network;
        builder.crashPolicy = crashPolicy;
        builder.crashWithinNanos = crashWithinNanos;
        builder.storageRoot = storageRoot;
        builder.failOnLeaks = failOnLeaks;
        builder.scheduling = scheduling;
        builder.openFileLimit = openFileLimit;
        builder.faultPoints = faultPoints;
        builder.priorities = priorities;
        builder.decisionChain = decisionChain;
        builder.receiveLimits = receiveLimits;
        return builder;
    }

    /**
     * This configuration with another seed.
     *
     * @param newSeed the seed
     * @return the new configuration
     */
    public SimConfig withSeed(long newSeed) {
        return toBuilder().seed(newSeed).build();
    }

    /**
     * Java source that builds this configuration: what a replay line prints. Fields at their defaults are left
     * out, except the seed, workers, ring size, start and time limit.
     *
     * @return a Java expression of type {@code SimConfig}
     */
    public String toJava() {
        return SimConfigJava.of(this);
    }

    /**
     * A stable hash of this configuration: the first 8 hex digits of the SHA-256 of {@link #toJava()}. The same
     * on every JVM (unlike {@link #hashCode()}, which hashes the crash policy by identity).
     *
     * @return 8 lower-case hex digits
     */
    public String configHash() {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(toJava().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * The line that reruns a run with this configuration: run the same task with the runner it builds.
     *
     * @return the replay line
     */
    public String replayLine() {
        return "replay: SimRunner.of(" + toJava() + ")  [seed " + seed + ", config " + configHash() + "]";
    }

    /** Builds a {@link SimConfig}; every value is checked by {@link #build()}. */
    public static final class Builder {
        private long seed = 42;
        private int workers = 1;
        private int ringEntries = 64;
        private long startNanos = DEFAULT_START.getEpochSecond() * 1_000_000_000L;
        private Instant start;
        private long timeLimitNanos = Duration.ofHours(1).toNanos();
        private Duration timeLimit;
        private StorageFaults storageFaults = StorageFaults.NONE;
        private KernelBehavior kernelBehavior = KernelBehavior.DEFAULT;
        private NetworkConfig network = NetworkConfig.DEFAULT;
        private CrashPolicy crashPolicy = CrashPolicy.ALL_LOST;
        private long crashWithinNanos;
        private Duration crashWithin;
        private String storageRoot = DEFAULT_STORAGE_ROOT;
        /** On by default: a run that ends holding resources it did not start with fails, naming each. */
        static final boolean DEFAULT_FAIL_ON_LEAKS = true;
        private boolean failOnLeaks = DEFAULT_FAIL_ON_LEAKS;
        private Scheduling scheduling = Scheduling.INTERLEAVED;
        private int openFileLimit = SimKernel.MAX_FDS;
        private FaultPoints faultPoints = FaultPoints.DEFAULT;
        private Priorities priorities = Priorities.OFF;
        private DecisionChain decisionChain = DecisionChain.NONE;
        private dev.lockstep.ReceiveLimits receiveLimits = dev.lockstep.ReceiveLimits.DEFAULT;

        private Builder() {
        }

        /**
         * Sets the seed; any value is valid.
         *
         * @param value the seed
         * @return this
         */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /**
         * Sets the number of simulated workers.
         *
         * @param value simulated workers, {@code >= 1}
         * @return this
         */
        public Builder workers(int value) {
            this.workers = value;
            return this;
        }

        /**
         * Sets the ring size per worker.
         *
         * @param value a power of two
         * @return this
         */
        public Builder ringEntries(int value) {
            this.ringEntries = value;
            return this;
        }

        /**
         * Sets the simulated start in epoch nanoseconds.
         *
         * @param value simulated start, {@code >= 0}
         * @return this
         */
        public Builder startNanos(long value) {
            this.startNanos = value;
            this.start = null;
            return this;
        }

        /**
         * Sets the simulated start.
         *
         * @param value simulated start, not before the epoch (checked by {@link #build()})
         * @return this
         */
        public Builder start(Instant value) {
            this.start = value;
            return this;
        }

        /**
         * Sets the simulated time one run may cover.
         *
         * @param value positive; durations beyond about 292 years mean no limit
         * @return this
         */
        public Builder timeLimit(Duration value) {
            this.timeLimit = value;
            return this;
        }

        /**
         * Sets the storage faults, in force from the moment the root task starts (the runner's own start-up is
         * not faulted). They can be changed during a run with {@link SimControl#storageFaults(StorageFaults)}.
         *
         * @param value storage faults
         * @return this
         */
        public Builder storageFaults(StorageFaults value) {
            this.storageFaults = value;
            return this;
        }

        /**
         * Sets the kernel behaviour.
         *
         * @param value kernel behaviour
         * @return this
         */
        public Builder kernelBehavior(KernelBehavior value) {
            this.kernelBehavior = value;
            return this;
        }

        /**
         * Sets the network behaviour.
         *
         * @param value network configuration
         * @return this
         */
        public Builder network(NetworkConfig value) {
            this.network = value;
            return this;
        }

        /**
         * Sets what a crash does with unsynced writes.
         *
         * @param value the crash policy
         * @return this
         */
        public Builder crashPolicy(CrashPolicy value) {
            this.crashPolicy = value;
            return this;
        }

        /**
         * Makes {@link SimRunner#startAndRecover} cut the run by a crash at a seeded simulated time within
         * {@code value} of the run's start. {@link Duration#ZERO} (the default) for no seeded crash point.
         *
         * @param value zero or positive
         * @return this
         */
        public Builder crashWithin(Duration value) {
            this.crashWithin = value;
            return this;
        }

        /**
         * Sets the storage directory inside the simulated file system.
         *
         * @param value an absolute path
         * @return this
         */
        public Builder storageRoot(String value) {
            this.storageRoot = value;
            return this;
        }

        /**
         * Sets whether a run that ends holding resources it did not start with fails (see
         * {@link SimConfig#failOnLeaks()}).
         *
         * @param value true to fail such a run
         * @return this
         */
        public Builder failOnLeaks(boolean value) {
            this.failOnLeaks = value;
            return this;
        }

        /**
         * Sets how fiber steps and the workers' service turns are ordered.
         *
         * @param value {@link Scheduling#INTERLEAVED} (the default) or {@link Scheduling#SERVICE_FIRST}, the
         *              order of earlier versions
         * @return this
         */
        public Builder scheduling(Scheduling value) {
            this.scheduling = value;
            return this;
        }

        /**
         * Sets the process's open-file limit (see {@link SimConfig#openFileLimit()}): what a run meets when a
         * service holds more descriptors than {@code ulimit -n} allows, as 1,024 does on many machines.
         *
         * @param value above {@link SimKernel#FIRST_FD} and at most {@link SimKernel#MAX_FDS} (checked by
         *              {@link #build()})
         * @return this
         */
        public Builder openFileLimit(int value) {
            this.openFileLimit = value;
            return this;
        }

        /**
         * Sets how often application fault points fire ({@link FaultPoints}).
         *
         * @param value {@link FaultPoints#DEFAULT} (the default), {@link FaultPoints#OFF} or other probabilities
         * @return this
         */
        public Builder faultPoints(FaultPoints value) {
            this.faultPoints = value;
            return this;
        }

        /**
         * Sets priority scheduling of fibers ({@link Priorities}).
         *
         * @param value {@link Priorities#OFF} (the default) or {@link Priorities#of}
         * @return this
         */
        public Builder priorities(Priorities value) {
            this.priorities = value;
            return this;
        }

        /**
         * Sets where the run's draws switch to other seeds ({@link DecisionChain}).
         *
         * @param value {@link DecisionChain#NONE} (the default) or a chain
         * @return this
         */
        public Builder decisionChain(DecisionChain value) {
            this.decisionChain = value;
            return this;
        }

        /**
         * Bounds the memory the run holds for received bytes (see {@link SimConfig#receiveLimits()}).
         *
         * @param value the bounds (null is refused by {@link #build()})
         * @return this
         */
        public Builder receiveLimits(dev.lockstep.ReceiveLimits value) {
            this.receiveLimits = value;
            return this;
        }

        private static long saturatedNanos(Duration duration) {
            try {
                return duration.toNanos();
            } catch (ArithmeticException overflow) {
                return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
        }

        /**
         * Checks every field and builds.
         *
         * @return the configuration
         * @throws InvalidConfigException naming the first bad field and its value
         */
        public SimConfig build() {
            long startAt = startNanos;
            if (start != null) {
                if (start.isBefore(Instant.EPOCH)) {
                    throw invalid("start", "must not be before the epoch, was " + start);
                }
                if (start.isAfter(LATEST_START)) {
                    throw invalid("start", "must not be after " + LATEST_START + ", so that deadlines after it still"
                            + " fit in epoch nanoseconds, was " + start);
                }
                startAt = start.getEpochSecond() * 1_000_000_000L + start.getNano();
            }
            long limit = timeLimitNanos;
            if (timeLimit != null) {
                limit = saturatedNanos(timeLimit);
                if (limit <= 0) {
                    throw invalid("timeLimit", "must be positive, was " + timeLimit);
                }
            }
            long crashWindow = crashWithinNanos;
            if (crashWithin != null) {
                crashWindow = saturatedNanos(crashWithin);
                if (crashWindow < 0) {
                    throw invalid("crashWithin", "must not be negative, was " + crashWithin);
                }
            }
            return new SimConfig(seed, workers, ringEntries, startAt, limit, storageFaults, kernelBehavior, network,
                    crashPolicy, crashWindow, storageRoot, failOnLeaks, scheduling, openFileLimit, faultPoints,
                    priorities, decisionChain, receiveLimits);
        }
    }
}
