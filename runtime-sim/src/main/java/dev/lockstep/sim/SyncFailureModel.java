package dev.lockstep.sim;

import dev.lockstep.sim.audit.Site;

/**
 * What a failed {@code fsync}, {@code fdatasync}, {@code syncfs} or {@code RWF_DSYNC} write does to the data it
 * was asked to make durable. Chosen with {@link StorageFaults.Builder#syncFailure(SyncFailureModel)}; the
 * failure itself is injected at {@link StorageFaults#syncRate()}.
 */
public enum SyncFailureModel {
    /**
     * What Linux does since 4.13 (the default). A failed writeback marks the pages it covered clean: the error is
     * reported once, to this call, and the unsynced writes and resizes of the file are dropped from the set of
     * things still to sync. Each of them may or may not have reached the disk (seeded, at
     * {@link Site#SYNC_WRITEBACK}: lost, whole, or a subset of its 512-byte sectors, as
     * {@link CrashPolicy#SUBSET} decides at a crash). Reads still see them (the page cache keeps the bytes), but
     * a later sync succeeds without writing them: a program that retries a failed sync and then acknowledges
     * may have acknowledged data that is gone after a crash. A failed {@code RWF_DSYNC} write lands in the page
     * cache and meets the same seeded fate. A failed sync of a directory leaves its entries unsynced (the
     * journal keeps metadata), so a retry can still make them durable.
     */
    LINUX,
    /**
     * The kind model: a failed sync changes nothing, its data stays unsynced in the page cache, and a retried
     * sync that succeeds makes it durable. A failed {@code RWF_DSYNC} write leaves its bytes unsynced in the page
     * cache. Kept to compare against {@link #LINUX}: code that is only correct here is wrong on Linux.
     */
    OPTIMISTIC
}
