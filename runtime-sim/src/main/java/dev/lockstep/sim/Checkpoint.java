package dev.lockstep.sim;

import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The state a crashed simulated run leaves behind, from which {@link SimRunner#from(Checkpoint)} starts the next
 * run: the generator (its next draw), the simulated clock, the auditor's chain, the durable storage image the
 * crash left (synced data, plus whatever the {@link CrashPolicy} kept of unsynced data), and the fault
 * configuration in force at the crash (changes made with {@link SimControl} included).
 *
 * <p>Tasks, connections, partitions, per-link profiles and open files do not survive: the next run boots a
 * fresh kernel and network on the same disk, as a machine does after a power cut.
 *
 * <p>Immutable: one checkpoint may start any number of runners, and each of them runs the same way.
 */
public final class Checkpoint {
    private final SimConfig config;
    private final SimConfig origin;
    private final int restarts;
    private final Generator.State generator;
    private final Auditor.State auditor;
    private final long clockNanos;
    private final StorageImage storage;
    private final CrashReport crashReport;
    private final String reason;

    Checkpoint(SimConfig config, SimConfig origin, int restarts, Generator.State generator, Auditor.State auditor,
            long clockNanos, StorageImage storage, CrashReport crashReport, String reason) {
        this.config = Objects.requireNonNull(config, "config");
        this.origin = Objects.requireNonNull(origin, "origin");
        this.restarts = restarts;
        this.generator = Objects.requireNonNull(generator, "generator");
        this.auditor = Objects.requireNonNull(auditor, "auditor");
        this.clockNanos = clockNanos;
        this.storage = Objects.requireNonNull(storage, "storage");
        this.crashReport = Objects.requireNonNull(crashReport, "crashReport");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * The configuration the next run uses: the crashed run's, with the storage faults, network configuration
     * and crash policy in force at the crash.
     *
     * @return the configuration
     */
    public SimConfig config() {
        return config;
    }

    /**
     * The configuration of the first run of this chain of restarts: with the same task and the same loop it
     * reproduces every run of the chain.
     *
     * @return the first run's configuration
     */
    public SimConfig origin() {
        return origin;
    }

    /**
     * How many crashes this chain has been through, this one included: 1 after the first run.
     *
     * @return at least 1
     */
    public int restarts() {
        return restarts;
    }

    /**
     * The generator's state at the crash.
     *
     * @return the state
     */
    public Generator.State generatorState() {
        return generator;
    }

    /**
     * The auditor's chain at the crash.
     *
     * @return the state
     */
    public Auditor.State auditorState() {
        return auditor;
    }

    /**
     * The audit digest at the crash.
     *
     * @return 64 lower-case hex digits
     */
    public String digest() {
        // The whole digest, the events since the last full segment included: the chain alone stays the same over
        // a run that recorded fewer than a segment's events.
        return HexFormat.of().formatHex(Auditor.fromState(auditor).digestBytes());
    }

    /**
     * The simulated time of the crash; the next run starts then.
     *
     * @return epoch nanoseconds
     */
    public long clockNanos() {
        return clockNanos;
    }

    /**
     * The simulated time of the crash.
     *
     * @return the instant
     */
    public Instant crashedAt() {
        return Instant.ofEpochSecond(Math.floorDiv(clockNanos, 1_000_000_000L), Math.floorMod(clockNanos,
                1_000_000_000L));
    }

    /**
     * The disk as the next run finds it.
     *
     * @return the durable image
     */
    public StorageImage storage() {
        return storage;
    }

    /**
     * What the crash decided for each file's unsynced writes and resizes.
     *
     * @return the report
     */
    public CrashReport crashReport() {
        return crashReport;
    }

    /**
     * Why the run crashed: the task called {@link SimControl#crash()}, the seeded crash point came, or the task
     * finished (the machine then loses power before anything else is synced).
     *
     * @return a description
     */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "Checkpoint(restart " + restarts + " of seed " + origin.seed() + " at " + crashedAt() + ", " + storage
                + ", digest " + digest() + ")";
    }
}
