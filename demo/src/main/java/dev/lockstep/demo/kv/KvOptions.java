package dev.lockstep.demo.kv;

import java.util.Objects;

/**
 * How a {@link KvStore} is laid out and behaves.
 *
 * @param partition the storage partition holding the manifest and the segments
 * @param segmentBytes roll to a new segment when a batch would take the current one past this size
 * @param maxBatchBytes a batch stops taking writes at this size (a larger single write still fits alone)
 * @param bug an injected bug, {@link InjectedBug#NONE} for the correct store
 * @param durability when an acknowledged write is durable
 */
public record KvOptions(String partition, long segmentBytes, int maxBatchBytes, InjectedBug bug,
        Durability durability) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming a bad value
     */
    public KvOptions {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(bug, "bug");
        Objects.requireNonNull(durability, "durability");
        if (segmentBytes < Records.SEGMENT_HEADER_BYTES + 64 || segmentBytes > (1L << 30)) {
            throw new IllegalArgumentException("segmentBytes must be in [88, 1 GiB], was " + segmentBytes);
        }
        if (maxBatchBytes < 1) {
            throw new IllegalArgumentException("maxBatchBytes must be positive, was " + maxBatchBytes);
        }
    }

    /**
     * Defaults for production: 16 MiB segments, batches up to 1 MiB, no bug, durable before acknowledged.
     *
     * @param partition the partition
     * @return the options
     */
    public static KvOptions defaults(String partition) {
        return new KvOptions(partition, 16L << 20, 1 << 20, InjectedBug.NONE, Durability.SYNC_BEFORE_ACK);
    }

    /**
     * These options with another bug.
     *
     * @param value the bug
     * @return new options
     */
    public KvOptions withBug(InjectedBug value) {
        return new KvOptions(partition, segmentBytes, maxBatchBytes, value, durability);
    }

    /**
     * These options with another segment size.
     *
     * @param value the size
     * @return new options
     */
    public KvOptions withSegmentBytes(long value) {
        return new KvOptions(partition, value, maxBatchBytes, bug, durability);
    }

    /**
     * These options with another durability.
     *
     * @param value when an acknowledged write is durable
     * @return new options
     */
    public KvOptions withDurability(Durability value) {
        return new KvOptions(partition, segmentBytes, maxBatchBytes, bug, value);
    }

    /** When an acknowledged write is durable. */
    public enum Durability {
        /** Each batch is synced before its writes are acknowledged: an acknowledged write survives any crash. */
        SYNC_BEFORE_ACK,
        /**
         * Each batch is acknowledged once written, and a sync of the log starts every second; while one has run
         * longer than a second, writes wait for it before they are acknowledged. A crash may lose the writes
         * acknowledged since the last completed sync started: at most two seconds of them (a kill of the process
         * loses nothing: the page cache keeps them).
         */
        SYNC_EVERY_SECOND
    }
}
