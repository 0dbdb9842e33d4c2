package dev.lockstep.testing.example;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.OpenedBlob;
import dev.lockstep.PartitionMissingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The user code of the README's "Replacing a blob crash-safely": a manifest (a version number with a CRC32C) in
 * the blob {@code MANIFEST} of partition {@code db}, replaced by writing {@code MANIFEST.next}, syncing it,
 * renaming it over {@code MANIFEST} and syncing the partition ({@link #replace}). {@link Bug} names the two ways
 * to get it wrong that {@code ManifestPatternTest} shows the simulator finding.
 */
final class Manifest {
    static final String PARTITION = "db";

    /** The two ways to get {@link #replace} wrong that {@code ManifestPatternTest} shows the simulator finding. */
    enum Bug {
        /** The rename is never made durable: a crash may bring the old manifest back. */
        NO_PARTITION_SYNC,
        /** The new contents are never synced: a crash may leave the name on an empty or torn blob. */
        NO_BLOB_SYNC
    }

    private Manifest() {
    }

    /** Publishes {@code version}: once it returns, every crash leaves this version or a later one. */
    static void publish(Context ctx, long version, Bug bug) {
        byte[] contents = ByteBuffer.allocate(12).putLong(version).putInt(crc32c(version)).array();
        if (bug == null) {
            replace(ctx, contents);
        } else {
            replaceWith(ctx, contents, bug);
        }
    }

    /** Replaces the manifest with {@code contents}: once it returns, every crash leaves them, whole. */
    static void replace(Context ctx, byte[] contents) {
        try (Blob next = ctx.open("db", "MANIFEST.next").await().blob()) {
            next.resize(0).await();                              // what a crash left of an earlier attempt
            next.writeAt(0, contents).await();
            next.sync().await();                                 // the new contents are durable,
        }
        ctx.rename("db", "MANIFEST.next", "MANIFEST").await();   // then take the name at once,
        ctx.syncPartition("db").await();                         // then the new name is durable
    }

    private static void replaceWith(Context ctx, byte[] contents, Bug bug) {
        try (Blob next = ctx.open("db", "MANIFEST.next").await().blob()) {
            next.resize(0).await();
            next.writeAt(0, contents).await();
            if (bug != Bug.NO_BLOB_SYNC) {
                next.sync().await();
            }
        }
        ctx.rename("db", "MANIFEST.next", "MANIFEST").await();
        if (bug != Bug.NO_PARTITION_SYNC) {
            ctx.syncPartition("db").await();
        }
    }

    /**
     * The published version, 0 if none was ever published.
     *
     * @throws IllegalStateException if the manifest is not one {@link #publish} wrote whole
     */
    static long read(Context ctx) {
        List<byte[]> names;
        try {
            names = ctx.scan(PARTITION).await();
        } catch (PartitionMissingException nothingYet) {
            return 0;
        }
        if (names.stream().noneMatch(name -> new String(name, StandardCharsets.UTF_8).equals("MANIFEST"))) {
            return 0;
        }
        OpenedBlob opened = ctx.open(PARTITION, "MANIFEST").await();
        try (Blob blob = opened.blob()) {
            if (opened.length() != 12) {
                throw new IllegalStateException("manifest of " + opened.length() + " bytes, not 12");
            }
            ByteBuffer contents = ByteBuffer.wrap(blob.readAt(0, 12).await());
            long version = contents.getLong();
            if (contents.getInt() != crc32c(version)) {
                throw new IllegalStateException("manifest version " + version + " fails its CRC");
            }
            return version;
        }
    }

    private static int crc32c(long version) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(8).putLong(version).array());
        return (int) crc.getValue();
    }
}
