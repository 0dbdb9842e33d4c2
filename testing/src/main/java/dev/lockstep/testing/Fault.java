package dev.lockstep.testing;

import java.util.Locale;

/**
 * One kind of fault the simulator can inject. A {@link FaultConfig} is a set of these; swarm testing turns a
 * random subset on for each seed, so that rare combinations (and runs with few faults, where deep states are
 * reached) are all explored.
 */
public enum Fault {
    /** Crashes (power cuts) at seeded times, then restarts from what the disk kept. */
    CRASH,
    /** At a crash, unsynced writes survive in part: a prefix or a subset, with writes torn at 512-byte sectors. */
    TORN_WRITES,
    /** Network partitions between hosts, healed later; data sent across is held until the heal. */
    PARTITION,
    /** Connections reset: on demand and at random on sends. */
    CONNECTION_RESET,
    /** File reads fail with {@code EIO}. */
    READ_ERRORS,
    /** File writes fail with {@code EIO}, some after writing a prefix. */
    WRITE_ERRORS,
    /** {@code fsync} fails with {@code EIO}; the data stays unsynced. */
    SYNC_ERRORS,
    /** {@code open}, {@code truncate}, {@code unlink} and directory listings fail with {@code EIO}. */
    METADATA_ERRORS,
    /** A small disk: writes fail with {@code ENOSPC} once it is full. */
    DISK_FULL,
    /** Legal but inconvenient kernel results: short transfers, {@code EAGAIN}, {@code EINTR}, cancel races. */
    KERNEL_QUIRKS,
    /**
     * Silent corruption: a file read returns a flipped bit, or a write stores one (at rest). The calls succeed; only
     * a reader that checks what it reads (a checksum) can tell. Not in {@link FaultConfig#ALL} nor in swarms: a
     * store without checksums cannot survive it, so a test names it.
     */
    CORRUPTION,
    /**
     * Misdirected writes: a write lands at another sector of its file and reports success. Like {@link #CORRUPTION},
     * only named, never implied.
     */
    MISDIRECTED_WRITES;

    /**
     * Whether this kind makes the disk lie rather than fail ({@link #CORRUPTION}, {@link #MISDIRECTED_WRITES}):
     * such kinds are on only when a test names them.
     *
     * @return true for the silent-corruption kinds
     */
    public boolean isSilentCorruption() {
        return this == CORRUPTION || this == MISDIRECTED_WRITES;
    }

    /**
     * The kinds {@code all}, {@link FaultConfig#swarm} and {@link SimGenerators#faultConfigs()} cover: every kind
     * but the silent-corruption ones.
     *
     * @return the kinds, in declaration order
     */
    public static Fault[] standard() {
        return java.util.Arrays.stream(values()).filter(fault -> !fault.isSilentCorruption()).toArray(Fault[]::new);
    }

    /**
     * The command-line name.
     *
     * @return e.g. {@code sync-errors}
     */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Parses a command-line name.
     *
     * @param name e.g. {@code sync-errors}, case-insensitive
     * @return the fault
     * @throws IllegalArgumentException naming the value and the known names
     */
    public static Fault parse(String name) {
        for (Fault fault : values()) {
            if (fault.cliName().equalsIgnoreCase(name) || fault.name().equalsIgnoreCase(name)) {
                return fault;
            }
        }
        StringBuilder known = new StringBuilder();
        for (Fault fault : values()) {
            known.append(known.isEmpty() ? "" : ", ").append(fault.cliName());
        }
        throw new IllegalArgumentException("unknown fault '" + name + "'; known: " + known);
    }
}
