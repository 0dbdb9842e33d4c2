package dev.lockstep.sim;

/**
 * What a simulated crash does with a file's writes and resizes that were never made durable.
 *
 * <p>Synced data always survives, and so does data written with {@code RWF_DSYNC}. Directory entries that were
 * created or removed since their directory's last {@code fsync} are always lost, under every policy: the
 * simulator takes the pessimistic view of metadata, because it is the view a crash-safe program must survive.
 * Each policy works per file, on that file's unsynced mutations in the order they were issued; the seeded
 * choices are drawn from the {@link Generator} at sites {@link Site#CRASH_PREFIX}, {@link Site#CRASH_SUBSET}
 * and {@link Site#CRASH_TEAR}, files visited in path order.
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
