package dev.lockstep.conformance;

import static dev.lockstep.conformance.StorageConformanceTest.bytes;
import static dev.lockstep.conformance.StorageConformanceTest.names;
import static dev.lockstep.conformance.StorageConformanceTest.open;
import static dev.lockstep.conformance.StorageConformanceTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobMissingException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.PartitionNameInvalidException;
import java.util.List;

/**
 * {@code Storage.rename} and {@code Storage.syncPartition} on every runtime: the atomic replace of a blob, what
 * open handles see across it, the typed refusals naming the bad value, and the safe manifest pattern surviving
 * a restart. What a crash may leave of a rename whose partition was not synced is the simulator's
 * (LinuxCrashOutcomesTest, ManifestPatternTest).
 */
@Group(ReadmeGroup.RENAME)
class RenameConformanceTest {

    /** A rename replaces its target: the new name holds the renamed blob, the old name nothing. */
    @Conformance
    void testRenameReplacesTheTarget(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob next = open(ctx, "partition", "next"); Blob current = open(ctx, "partition", "current")) {
                next.writeAt(0, bytes("new contents")).await();
                next.sync().await();
                current.writeAt(0, bytes("old")).await();
                current.sync().await();
                ctx.rename("partition", "next", "current").await();
                assertEquals(List.of("current"), names(ctx.scan("partition").await()));
                OpenedBlob reopened = ctx.open("partition", "current").await();
                try (Blob blob = reopened.blob()) {
                    assertEquals(12, reopened.length());
                    assertEquals("new contents", text(blob.readAt(0, 12).await()));
                }
                // Handles follow their blob, not its name: the replaced one still reads what it held, the
                // renamed one writes to what "current" now names.
                assertEquals("old", text(current.readAt(0, 3).await()));
                next.writeAt(0, bytes("NEW")).await();
                try (Blob blob = open(ctx, "partition", "current")) {
                    assertEquals("NEW contents", text(blob.readAt(0, 12).await()));
                }
            }
            return null;
        });
    }

    /** A rename to a free name moves the blob; to its own name it changes nothing. */
    @Conformance
    void testRenameToAFreeNameAndToItself(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "a")) {
                blob.writeAt(0, bytes("abc")).await();
            }
            ctx.rename("partition", "a", "b").await();
            assertEquals(List.of("b"), names(ctx.scan("partition").await()));
            ctx.rename("partition", "b", "b").await();
            assertEquals(List.of("b"), names(ctx.scan("partition").await()));
            ctx.syncPartition("partition").await();
            try (Blob blob = open(ctx, "partition", "b")) {
                assertEquals("abc", text(blob.readAt(0, 3).await()));
            }
            return null;
        });
    }

    /** Nothing to rename or sync, and bad names: typed, naming the value, the same on every runtime. */
    @Conformance
    void testRefusalsAreTypedAndNamed(Runtimes rt) {
        rt.runner().start(ctx -> {
            PartitionMissingException noPartition = assertThrows(PartitionMissingException.class,
                    () -> ctx.rename("nowhere", "a", "b").await());
            assertTrue(noPartition.getMessage().contains("'nowhere'"), noPartition.getMessage());
            open(ctx, "partition", "present").close();
            BlobMissingException noBlob = assertThrows(BlobMissingException.class,
                    () -> ctx.rename("partition", "absent", "present").await());
            assertTrue(noBlob.getMessage().contains("'partition/absent'"), noBlob.getMessage());
            assertThrows(BlobMissingException.class, () -> ctx.rename("partition", "absent", "absent").await());
            assertEquals(List.of("present"), names(ctx.scan("partition").await()), "a refused rename changes nothing");
            PartitionMissingException noSync = assertThrows(PartitionMissingException.class,
                    () -> ctx.syncPartition("nowhere").await());
            assertTrue(noSync.getMessage().contains("'nowhere'"), noSync.getMessage());
            PartitionNameInvalidException badPartition = assertThrows(PartitionNameInvalidException.class,
                    () -> ctx.rename("no/slash", "a", "b"));
            assertTrue(badPartition.getMessage().contains("no/slash"), badPartition.getMessage());
            assertThrows(PartitionNameInvalidException.class, () -> ctx.syncPartition("no space"));
            IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                    () -> ctx.rename("partition", new byte[0], bytes("b")));
            assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
            IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                    () -> ctx.rename("partition", bytes("present"), new byte[128]));
            assertTrue(tooLong.getMessage().contains("128"), tooLong.getMessage());
            return null;
        });
    }

    /**
     * The safe manifest pattern — write a temporary blob, sync it, rename it over the manifest, sync the
     * partition — survives a restart (the simulator's crash, which keeps exactly what was made durable).
     */
    @Conformance
    void testSyncedRenameSurvivesARestart(Runtimes rt) {
        String recovered = rt.restartBetween(ctx -> {
            try (Blob manifest = open(ctx, "db", "MANIFEST")) {
                manifest.writeAt(0, bytes("version 1")).await();
                manifest.sync().await();
            }
            try (Blob next = open(ctx, "db", "MANIFEST.tmp")) {
                next.writeAt(0, bytes("version 2")).await();
                next.sync().await();
            }
            ctx.rename("db", "MANIFEST.tmp", "MANIFEST").await();
            ctx.syncPartition("db").await();
            return null;
        }, ctx -> {
            assertEquals(List.of("MANIFEST"), names(ctx.scan("db").await()));
            try (Blob manifest = open(ctx, "db", "MANIFEST")) {
                return text(manifest.readAt(0, 9).await());
            }
        });
        assertEquals("version 2", recovered);
    }
}
