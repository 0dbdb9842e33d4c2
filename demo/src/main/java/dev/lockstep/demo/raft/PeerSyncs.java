package dev.lockstep.demo.raft;

import dev.lockstep.Context;
import dev.lockstep.demo.kv.InjectedBug;
import java.time.Duration;

/**
 * When what a peer's request changed becomes durable: Raft's rule is before the answer ({@link #meta},
 * {@link #log}); the planted bugs {@link InjectedBug#UNSYNCED_VOTE} and {@link InjectedBug#FOLLOWER_ACK_BEFORE_SYNC}
 * put the sync off until the answer was sent ({@link #payOwed}). Before such a sync the fault point
 * {@link RarePaths#SYNC_SLOW} may make it a slow disk's.
 *
 * <p>Not thread-safe: the node calls it with its lock held, so the slow sync holds the lock, as a real slow sync
 * does.
 */
final class PeerSyncs {
    /** How long a sync the fault point {@code raft.sync-slow} slows down waits first: a slow disk's fsync. */
    private static final Duration SLOW_SYNC = Duration.ofMillis(2);

    private final DurableState state;
    private final InjectedBug bug;
    private final RarePaths rarePaths;
    private boolean metaOwed;
    private boolean logOwed;

    PeerSyncs(DurableState state, InjectedBug bug, RarePaths rarePaths) {
        this.state = state;
        this.bug = bug;
        this.rarePaths = rarePaths;
    }

    /** The term and vote a RequestVote changed, durable before the answer (unless the bug puts it off). */
    void meta(Context ctx) {
        if (bug == InjectedBug.UNSYNCED_VOTE) {
            metaOwed = true;                                   // the bug: answered first, synced after
        } else {
            slowDisk(ctx);
            state.syncMeta();
        }
    }

    /** The entries an AppendEntries changed, durable before the answer (unless the bug puts it off). */
    void log(Context ctx) {
        if (bug == InjectedBug.FOLLOWER_ACK_BEFORE_SYNC) {
            logOwed = true;                                    // the bug: acknowledged first, synced after
        } else {
            slowDisk(ctx);
            state.syncLog();
        }
    }

    /** The answer was sent (or dropped): what a bug put off is synced now. */
    void payOwed(Context ctx) {
        if (metaOwed || logOwed) {
            slowDisk(ctx);
        }
        if (metaOwed) {
            metaOwed = false;
            state.syncMeta();
        }
        if (logOwed) {
            logOwed = false;
            state.syncLog();
        }
    }

    private void slowDisk(Context ctx) {
        if (rarePaths.take(RarePaths.SYNC_SLOW)) {
            ctx.sleep(SLOW_SYNC);
        }
    }
}
