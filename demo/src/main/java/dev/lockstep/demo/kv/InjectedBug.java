package dev.lockstep.demo.kv;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Deliberate bugs the store (and the replicated workload's Raft nodes) can be built with, to show that the simulator
 * finds real durability bugs. Each is one small, plausible mistake; with {@link #NONE} the code is correct.
 */
public enum InjectedBug {
    /** The correct store. */
    NONE("none", "no injected bug", Target.NOTHING),
    /** A batch is acknowledged once written, and its sync is started but not waited for. */
    ACK_BEFORE_SYNC("ack-before-sync", "acknowledge a batch once written, before its sync completes",
            Target.STORE),
    /**
     * Recovery trusts record lengths without verifying checksums and does not truncate the tail: a torn record
     * is replayed, and new records are appended after the garbage.
     */
    SKIP_TORN_TAIL_CHECK("skip-torn-tail-check", "recovery skips checksums and keeps a torn tail",
            Target.STORE),
    /** A new segment is added to the manifest (the store's directory of segments) without syncing it. */
    FORGET_DIRECTORY_SYNC("forget-directory-sync", "a new segment's manifest entry is never synced",
            Target.STORE),
    /**
     * Raft (the replicated workload): a leader advances its commit index over an entry of an earlier term as soon
     * as a majority holds it (the Raft paper's Figure 8), where only entries of its own term may be counted.
     */
    FIGURE_8("figure-8", "a leader commits an earlier term's entry by counting replicas", Target.RAFT),
    /** Raft: a node answers RequestVote before its new term and vote are synced (it syncs them after). */
    UNSYNCED_VOTE("unsynced-vote", "term and vote not synced before a RequestVote is answered", Target.RAFT),
    /** Raft: the vote is kept in memory only, so a node that reboots in the same term may vote again. */
    FORGET_VOTE_ON_REBOOT("forget-vote-on-reboot", "the vote is not persisted: a reboot forgets it", Target.RAFT),
    /** Raft: a follower acknowledges AppendEntries before its log is synced (it syncs after answering). */
    FOLLOWER_ACK_BEFORE_SYNC("follower-ack-before-sync", "a follower acknowledges AppendEntries before its log"
            + " is synced", Target.RAFT),
    /**
     * Raft: a follower cuts its log after the last entry of every AppendEntries it accepts, so a stale (delayed,
     * shorter) one drops entries it had already acknowledged.
     */
    TRUNCATE_ON_STALE_APPEND("truncate-on-stale-append", "a follower truncates its log on a stale AppendEntries",
            Target.RAFT),
    /**
     * Raft: a follower sets its commit index to the leader's without bounding it by the last entry the leader
     * sent, so it commits a stale tail of its own log.
     */
    COMMIT_PAST_MATCH("commit-past-match", "a follower's commit index goes past what the leader matched",
            Target.RAFT),
    /** Raft: a leader answers a linearizable read from its own state, without confirming with a majority. */
    READ_WITHOUT_QUORUM("read-without-quorum", "a read served by a leader without a quorum", Target.RAFT),
    /** Raft: a node grants its vote without checking that the candidate's log is at least as up to date. */
    VOTE_WITHOUT_LOG_CHECK("vote-without-log-check", "a vote granted without the up-to-date log check",
            Target.RAFT),
    /** Raft: a leader acknowledges a client's command once it is in its own log, before it is committed. */
    ACK_BEFORE_COMMIT("ack-before-commit", "a leader acknowledges a command before it is committed", Target.RAFT),
    /**
     * Raft: recovery rewrites the log file in place (truncated to nothing, written again, then synced), so a crash
     * during recovery loses entries that were durable before it.
     */
    RECOVERY_REWRITES_LOG("recovery-rewrites-log", "recovery rewrites the log in place: a crash during recovery"
            + " loses it", Target.RAFT),
    /** Raft: every election timeout is the same fixed value, not drawn at random, so elections can split forever. */
    FIXED_ELECTION_TIMEOUT("fixed-election-timeout", "election timeouts are not randomized", Target.RAFT);

    /** Which code a bug is planted in. */
    public enum Target {
        /** Nothing: {@link #NONE}. */
        NOTHING,
        /** The key-value store ({@code dev.lockstep.demo.kv}). */
        STORE,
        /** The Raft nodes of the replicated workload ({@code dev.lockstep.demo.raft}). */
        RAFT
    }

    /**
     * Whether the bug is in the replicated workload's Raft nodes ({@code dev.lockstep.demo.raft}) rather than in
     * the key-value store.
     *
     * @return true for the Raft bugs
     */
    public boolean replication() {
        return target == Target.RAFT;
    }

    /**
     * Where the bug is planted.
     *
     * @return the target
     */
    public Target target() {
        return target;
    }

    private final String cliName;
    private final String description;
    private final Target target;

    InjectedBug(String cliName, String description, Target target) {
        this.cliName = cliName;
        this.description = description;
        this.target = target;
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
