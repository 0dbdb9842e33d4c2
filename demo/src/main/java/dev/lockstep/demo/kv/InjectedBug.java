package dev.lockstep.demo.kv;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Deliberate bugs the store (and the replicated workload's nodes) can be built with, to show that the simulator
 * finds real durability bugs. Each is one small, plausible mistake; with {@link #NONE} the code is correct.
 */
public enum InjectedBug {
    /** The correct store. */
    NONE("none", "no injected bug"),
    /** A batch is acknowledged once written, and its sync is started but not waited for. */
    ACK_BEFORE_SYNC("ack-before-sync", "acknowledge a batch once written, before its sync completes"),
    /**
     * Recovery trusts record lengths without verifying checksums and does not truncate the tail: a torn record
     * is replayed, and new records are appended after the garbage.
     */
    SKIP_TORN_TAIL_CHECK("skip-torn-tail-check", "recovery skips checksums and keeps a torn tail"),
    /** A new segment is added to the manifest (the store's directory of segments) without syncing it. */
    FORGET_DIRECTORY_SYNC("forget-directory-sync", "a new segment's manifest entry is never synced"),
    /**
     * The replicated workload's primary acknowledges a put once it is synced locally and replicates it in the
     * background: one copy, where two were promised.
     */
    ACK_BEFORE_REPLICATION("ack-before-replication", "the primary acknowledges a put before a backup has it"),
    /** The replicated workload's backup acknowledges a put before its sync completes. */
    BACKUP_ACK_BEFORE_SYNC("backup-ack-before-sync", "a backup acknowledges a put before syncing it");

    /**
     * Whether the bug is in the replicated workload's nodes ({@code dev.lockstep.demo.replica}) rather than in the
     * key-value store.
     *
     * @return true for the replication bugs
     */
    public boolean replication() {
        return this == ACK_BEFORE_REPLICATION || this == BACKUP_ACK_BEFORE_SYNC;
    }

    private final String cliName;
    private final String description;

    InjectedBug(String cliName, String description) {
        this.cliName = cliName;
        this.description = description;
    }

    /**
     * The name used on the command line and in replay lines.
     *
     * @return e.g. {@code ack-before-sync}
     */
    public String cliName() {
        return cliName;
    }

    /**
     * One line saying what the bug does.
     *
     * @return the description
     */
    public String description() {
        return description;
    }

    /**
     * Parses a command-line name.
     *
     * @param name e.g. {@code forget-directory-sync}; case-insensitive
     * @return the bug
     * @throws IllegalArgumentException naming the value and the accepted names
     */
    public static InjectedBug parse(String name) {
        for (InjectedBug bug : values()) {
            if (bug.cliName.equalsIgnoreCase(name) || bug.name().equalsIgnoreCase(name)) {
                return bug;
            }
        }
        throw new IllegalArgumentException("unknown bug '" + name + "'; known: " + names());
    }

    /**
     * The accepted names, comma separated.
     *
     * @return the names
     */
    public static String names() {
        return Arrays.stream(values()).map(InjectedBug::cliName).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return cliName.toLowerCase(Locale.ROOT);
    }
}
