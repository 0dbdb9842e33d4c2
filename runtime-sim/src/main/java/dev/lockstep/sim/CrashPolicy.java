package dev.lockstep.sim;

import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;

/**
 * What a simulated crash does with a file's writes and resizes that were never made durable.
 *
 * <p>Synced data always survives, and so does data written with {@code RWF_DSYNC}. A directory entry created,
 * removed or replaced since its directory's last {@code fsync} is lost under {@link #ALL_LOST}; under
 * {@link #PREFIX} and {@link #SUBSET} each such name keeps its old or its new entry by seed (a draw at
 * {@link Site#CRASH_ENTRY}, names in order), as on ext4, whose journal commits a directory change with its next
 * transaction whether or not the directory was synced: a crash-safe program must survive the change being lost
 * and it being kept. A rename is one change of two names: both keep their old entries (the file under its old
 * name, the replaced file, if any, under the new one) or both take their new ones, never a mix (neither name, or
 * the file under both): ext4 journals the removal and the addition in one transaction. Renames of the same
 * names since the last sync form one change, kept or lost whole. Each policy works per file, on that file's unsynced mutations in the order they were
 * issued; the seeded choices are drawn from the {@link Generator} at sites {@link Site#CRASH_PREFIX},
 * {@link Site#CRASH_SUBSET} and {@link Site#CRASH_TEAR}, files visited in path order.
 *
 * <p>The unsynced mutations a crash chooses among are bounded by the file's size: once a file's unsynced writes
 * hold more than twice its size (of at least 64 KiB), the bytes of each that a later write overwrote are dropped,
 * as the page cache keeps only a page's latest bytes. Those earlier versions can then no longer be what a crash
 * leaves; what a sync makes durable is the same.
 */
public enum CrashPolicy {
    /** Every unsynced mutation is lost: each file is exactly what its last successful sync made durable. */
    ALL_LOST,
    /**
     * A seeded prefix of the file's unsynced mutations survives, whole; the first mutation after the prefix,
     * if it is a write, may be torn: a seeded number of its leading 512-byte sectors (sector boundaries are
     * absolute file offsets that are multiples of 512) reached the disk, the rest did not. This is the model of
     * a disk that writes back in issue order.
     */
    PREFIX,
    /**
     * Each unsynced mutation independently survives whole, is lost, or (a write) is torn: a seeded subset of
     * its 512-byte sectors reached the disk. This is the model of a disk that reorders write-back freely.
     */
    SUBSET
}
