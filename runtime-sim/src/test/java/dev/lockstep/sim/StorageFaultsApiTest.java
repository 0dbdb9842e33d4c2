package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.BlobMissingException;
import dev.lockstep.Context;
import dev.lockstep.LockstepException;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.StorageException;
import dev.lockstep.StorageFullException;
import dev.lockstep.StorageIoException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every storage fault kind is reachable through the public API and reported as its typed exception, naming
 * what failed. Faults are switched on from inside the task with {@link SimControl#storageFaults}.
 */
class StorageFaultsApiTest {

    /** A blob "p/b" holding "0123456789", synced, with {@code faults} switched on afterwards. */
    private static <T> T withFaults(StorageFaults faults, Function<Fixture, T> body) {
        return SimRunner.seeded(77).start(ctx -> {
            Blob blob = ctx.open("p", "b").await().blob();
            blob.writeAt(0, "0123456789".getBytes(StandardCharsets.UTF_8)).await();
            blob.sync().await();
            SimRunner.control(ctx).storageFaults(faults);
            try (blob) {
                return body.apply(new Fixture(ctx, blob));
            }
        });
    }

    private record Fixture(Context ctx, Blob blob) {
    }

    private static <E extends StorageException> E fails(Class<E> type, String mentions, Executable call) {
        E failure = assertThrows(type, call);
        assertTrue(failure.getMessage().contains(mentions), failure.getMessage() + " should mention " + mentions);
        return failure;
    }

    @Test
    void openFaultFailsOpenWithStorageIo() {
        withFaults(StorageFaults.builder().openRate(1).build(), f -> {
            fails(StorageIoException.class, "EIO", () -> f.ctx().open("p", "other").await());
            fails(StorageIoException.class, "p/", () -> f.ctx().open("p", "b").await());
            return null;
        });
    }

    @Test
    void readFaultFailsReadsWithStorageIo() {
        withFaults(StorageFaults.builder().readRate(1).build(), f -> fails(StorageIoException.class, "EIO",
                () -> f.blob().readAt(0, 4).await()));
    }

    @Test
    void writeFaultFailsWritesWithStorageIoAndMayLeaveAPrefix() {
        byte[] after = withFaults(StorageFaults.builder().writeRate(1).partialWriteRate(1).build(), f -> {
            fails(StorageIoException.class, "EIO", () -> f.blob().writeAt(0, new byte[] {'a', 'b', 'c', 'd'})
                    .await());
            SimRunner.control(f.ctx()).storageFaults(StorageFaults.NONE);
            return f.blob().readAt(0, 10).await();
        });
        // A failed write honestly may have changed the file: here a seeded, non-empty proper prefix landed.
        String text = new String(after, StandardCharsets.UTF_8);
        assertTrue(text.startsWith("a") && text.endsWith("456789") && !text.startsWith("abcd"), text);
    }

    @Test
    void syncFaultFailsSyncsWithStorageIo() {
        withFaults(StorageFaults.builder().syncRate(1).build(), f -> {
            f.blob().writeAt(0, new byte[] {'x'}).await();
            return fails(StorageIoException.class, "EIO", () -> f.blob().sync().await());
        });
    }

    @Test
    void resizeFaultFailsResizesWithStorageIo() {
        withFaults(StorageFaults.builder().resizeRate(1).build(), f -> fails(StorageIoException.class, "resize",
                () -> f.blob().resize(3).await()));
    }

    @Test
    void removeFaultFailsRemovesWithStorageIo() {
        withFaults(StorageFaults.builder().removeRate(1).build(), f -> fails(StorageIoException.class, "EIO",
                () -> f.ctx().remove("p", "b".getBytes(StandardCharsets.UTF_8)).await()));
    }

    @Test
    void openFaultFailsCreateNewAndOpenExistingAndCreatesNothing() {
        List<String> names = withFaults(StorageFaults.builder().openRate(1).build(), f -> {
            fails(StorageIoException.class, "open of blob 'p/fresh'",
                    () -> f.ctx().open("p", "fresh", dev.lockstep.OpenOptions.CREATE_NEW).await());
            fails(StorageIoException.class, "open of blob 'p/b'",
                    () -> f.ctx().open("p", "b", dev.lockstep.OpenOptions.OPEN_EXISTING).await());
            return f.ctx().scan("p").await().stream().map(n -> new String(n, StandardCharsets.UTF_8)).toList();
        });
        assertEquals(List.of("b"), names, "the failed create left no blob behind");
    }

    /**
     * With no room for a directory entry (ENOSPC, ext4 out of inodes), an open that would create the blob and a
     * rename fail with StorageFullException naming what they were to do, and change nothing; an open of a blob
     * that exists needs no entry and works.
     */
    @Test
    void metadataFullFailsCreatesAndRenamesWithStorageFullAndChangesNothing() {
        List<String> names = withFaults(StorageFaults.builder().metadataFullRate(1).build(), f -> {
            fails(StorageFullException.class, "open of blob 'p/fresh'",
                    () -> f.ctx().open("p", "fresh", dev.lockstep.OpenOptions.CREATE_NEW).await());
            fails(StorageFullException.class, "ENOSPC", () -> f.ctx().open("p", "other").await());
            fails(StorageFullException.class, "rename of blob 'p/b' to 'p/c'",
                    () -> f.ctx().rename("p", "b", "c").await());
            f.ctx().open("p", "b", dev.lockstep.OpenOptions.OPEN_EXISTING).await().blob().close();
            return f.ctx().scan("p").await().stream().map(n -> new String(n, StandardCharsets.UTF_8)).toList();
        });
        assertEquals(List.of("b"), names, "nothing was created or renamed");
    }

    /**
     * An open that created its blob and then failed to make it durable (its directory's fsync failed) fails with
     * StorageIoException, and the blob is there: a failed metadata call may have had its effect, as on Linux,
     * where the entry may also survive a crash. So a CREATE_NEW retried after the failure finds the blob
     * (BlobExistsException naming it), and recovery opens it (OPEN_EXISTING) or removes it (Storage's doc).
     */
    @Test
    void aCreateNewWhoseSyncFailedLeavesTheBlobForRecoveryToFind() {
        List<String> names = withFaults(StorageFaults.builder().syncRate(1).build(), f -> {
            fails(StorageIoException.class, "p/fresh",
                    () -> f.ctx().open("p", "fresh", dev.lockstep.OpenOptions.CREATE_NEW).await());
            SimRunner.control(f.ctx()).storageFaults(StorageFaults.NONE);
            fails(dev.lockstep.BlobExistsException.class, "p/fresh",
                    () -> f.ctx().open("p", "fresh", dev.lockstep.OpenOptions.CREATE_NEW).await());
            dev.lockstep.OpenedBlob found = f.ctx().open("p", "fresh", dev.lockstep.OpenOptions.OPEN_EXISTING).await();
            found.blob().close();
            assertEquals(0, found.length());
            return f.ctx().scan("p").await().stream().map(n -> new String(n, StandardCharsets.UTF_8)).toList();
        });
        assertEquals(List.of("b", "fresh"), names);
    }

    @Test
    void renameFaultFailsRenamesWithStorageIoNamingBothBlobsAndChangesNothing() {
        List<String> names = withFaults(StorageFaults.builder().removeRate(1).build(), f -> {
            fails(StorageIoException.class, "rename of blob 'p/b' to 'p/c'", () -> f.ctx().rename("p", "b", "c")
                    .await());
            return f.ctx().scan("p").await().stream().map(n -> new String(n, StandardCharsets.UTF_8)).toList();
        });
        assertEquals(List.of("b"), names, "the failed rename left the names as they were");
    }

    @Test
    void syncFaultFailsAPartitionSyncWithStorageIo() {
        withFaults(StorageFaults.builder().syncRate(1).build(), f -> fails(StorageIoException.class,
                "sync of partition 'p'", () -> f.ctx().syncPartition("p").await()));
    }

    @Test
    void scanFaultFailsScansWithStorageIo() {
        withFaults(StorageFaults.builder().scanRate(1).build(), f -> fails(StorageIoException.class, "scan",
                () -> f.ctx().scan("p").await()));
    }

    @Test
    void aFullDiskFailsWritesWithStorageFullAfterWritingWhatFits() {
        byte[] after = withFaults(StorageFaults.builder().capacityBytes(14).build(), f -> {
            fails(StorageFullException.class, "full", () -> f.blob().writeAt(10, new byte[] {'a', 'b', 'c', 'd', 'e',
                    'f'}).await());
            return f.blob().readAt(0, 14).await();
        });
        assertEquals("0123456789abcd", new String(after, StandardCharsets.UTF_8), "what fitted was written");
    }

    /**
     * An allocation the disk has no room for fails with StorageFullException naming the blob and changes nothing;
     * one that fits takes its space, so a write inside it succeeds on the full disk while one past it fails.
     */
    @Test
    void aFullDiskFailsAnAllocationWithStorageFullAndWritesInsideOneStillFit() {
        byte[] after = withFaults(StorageFaults.builder().capacityBytes(100).build(), f -> {
            fails(StorageFullException.class, "p/b", () -> f.blob().allocate(0, 101).await());
            assertEquals(10, f.blob().length(), "a refused allocation changes nothing");
            f.blob().allocate(50, 50).await();
            assertEquals(100, f.blob().length());
            f.blob().writeAt(90, "inside".getBytes(StandardCharsets.UTF_8)).await();
            fails(StorageFullException.class, "full", () -> f.blob().writeAt(100, new byte[] {1}).await());
            return f.blob().readAt(90, 10).await();
        });
        assertEquals("inside", new String(after, 0, 6, StandardCharsets.UTF_8));
    }

    @Test
    void aResizeFaultFailsAnAllocationWithStorageIo() {
        withFaults(StorageFaults.builder().resizeRate(1).build(), f -> {
            fails(StorageIoException.class, "EIO", () -> f.blob().allocate(0, 4096).await());
            return null;
        });
    }

    @Test
    void theOtherStorageFailuresAreTypedToo() {
        withFaults(StorageFaults.NONE, f -> {
            fails(BlobInsufficientLengthException.class, "", () -> f.blob().readAt(8, 4).await());
            fails(BlobMissingException.class, "p/", () -> f.ctx().remove("p", new byte[] {9}).await());
            fails(PartitionMissingException.class, "nope", () -> f.ctx().scan("nope").await());
            assertEquals(1, f.ctx().scan("p").await().size());
            return null;
        });
    }

    @Test
    void faultsAtModerateRatesAreSeededAndReplay() {
        StorageFaults faults = StorageFaults.builder().allRates(0.2).partialWriteRate(0.5).build();
        String first = faultyRun(faults);
        assertEquals(first, faultyRun(faults));
        assertTrue(first.contains("StorageIoException") && first.contains("ok"), first);
    }

    private static String faultyRun(StorageFaults faults) {
        return SimRunner.of(SimConfig.builder().seed(78).storageFaults(faults).build()).start(ctx -> {
            StringBuilder log = new StringBuilder();
            for (int i = 0; i < 30; i++) {
                try {
                    Blob blob = ctx.open("p", "b" + (i % 3)).await().blob();
                    try (blob) {
                        blob.writeAt(i, new byte[] {(byte) i}).await();
                        blob.sync().await();
                        assertArrayEquals(new byte[] {(byte) i}, blob.readAt(i, 1).await());
                        List<byte[]> names = ctx.scan("p").await();
                        log.append("ok").append(names.size()).append(' ');
                    }
                } catch (LockstepException fault) {
                    log.append(fault.getClass().getSimpleName()).append(' ');
                }
            }
            return log + ctx.digest();
        });
    }
}
