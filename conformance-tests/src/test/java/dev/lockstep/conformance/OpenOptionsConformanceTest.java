package dev.lockstep.conformance;

import static dev.lockstep.conformance.StorageConformanceTest.bytes;
import static dev.lockstep.conformance.StorageConformanceTest.names;
import static dev.lockstep.conformance.StorageConformanceTest.open;
import static dev.lockstep.conformance.StorageConformanceTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobExistsException;
import dev.lockstep.BlobMissingException;
import dev.lockstep.Handle;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import dev.lockstep.PartitionMissingException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link OpenOptions}' answer to an existing or missing blob on every runtime: create only if missing
 * ({@code O_EXCL}), open only if present, each composed with direct I/O, the refusals typed and naming the blob.
 */
@Group(ReadmeGroup.OPEN_OPTIONS)
class OpenOptionsConformanceTest {

    /** CREATE_NEW creates a blob once: a second create fails naming it, and leaves its contents alone. */
    @Conformance
    void testCreateNewRefusesAnExistingBlob(Runtimes rt) {
        rt.runner().start(ctx -> {
            OpenedBlob created = ctx.open("partition", "segment-1", OpenOptions.CREATE_NEW).await();
            assertEquals(0, created.length());
            try (Blob blob = created.blob()) {
                blob.writeAt(0, bytes("first")).await();
                blob.sync().await();
            }
            BlobExistsException exists = assertThrows(BlobExistsException.class,
                    () -> ctx.open("partition", "segment-1", OpenOptions.CREATE_NEW).await());
            assertTrue(exists.getMessage().contains("'partition/segment-1'"), exists.getMessage());
            try (Blob blob = open(ctx, "partition", "segment-1")) {
                assertEquals("first", text(blob.readAt(0, 5).await()), "the refused create changed nothing");
            }
            // In a partition that does not exist yet, it creates the partition too.
            ctx.open("fresh", "segment-1", OpenOptions.CREATE_NEW).await().blob().close();
            assertEquals(List.of("segment-1"), names(ctx.scan("fresh").await()));
            return null;
        });
    }

    /** OPEN_EXISTING opens what exists and creates nothing: a missing blob or partition is refused by name. */
    @Conformance
    void testOpenExistingCreatesNothing(Runtimes rt) {
        rt.runner().start(ctx -> {
            PartitionMissingException noPartition = assertThrows(PartitionMissingException.class,
                    () -> ctx.open("recovering", "segment-7", OpenOptions.OPEN_EXISTING).await());
            assertTrue(noPartition.getMessage().contains("'recovering'"), noPartition.getMessage());
            assertThrows(PartitionMissingException.class, () -> ctx.scan("recovering").await(),
                    "the refused open created no partition");
            try (Blob blob = open(ctx, "recovering", "segment-6")) {
                blob.writeAt(0, bytes("six")).await();
            }
            BlobMissingException noBlob = assertThrows(BlobMissingException.class,
                    () -> ctx.open("recovering", "segment-7", OpenOptions.OPEN_EXISTING).await());
            assertTrue(noBlob.getMessage().contains("'recovering/segment-7'"), noBlob.getMessage());
            assertEquals(List.of("segment-6"), names(ctx.scan("recovering").await()), "nor a blob");
            OpenedBlob existing = ctx.open("recovering", "segment-6", OpenOptions.OPEN_EXISTING).await();
            try (Blob blob = existing.blob()) {
                assertEquals(3, existing.length());
                assertEquals("six", text(blob.readAt(0, 3).await()));
            }
            // A renamed blob is missing under its old name.
            ctx.rename("recovering", "segment-6", "segment-8").await();
            assertThrows(BlobMissingException.class,
                    () -> ctx.open("recovering", "segment-6", OpenOptions.OPEN_EXISTING).await());
            return null;
        });
    }

    /** Both compose with direct I/O: the blob is opened for aligned transfers, and refused as without it. */
    @Conformance
    void testBothComposeWithDirectIo(Runtimes rt) {
        rt.runner().start(ctx -> {
            OpenOptions createDirect = OpenOptions.CREATE_NEW.withDirect(true);
            assertEquals(new OpenOptions(true, OpenOptions.Existing.CREATE_NEW), createDirect);
            try (Blob blob = ctx.open("direct", "data", createDirect).await().blob()) {
                int alignment = blob.directAlignment();
                assertTrue(alignment > 0, "a direct blob has an alignment, was " + alignment);
                byte[] block = new byte[alignment];
                block[0] = 42;
                blob.writeAt(0, block).await();
                blob.sync().await();
            }
            assertThrows(BlobExistsException.class, () -> ctx.open("direct", "data", createDirect).await());
            OpenOptions existingDirect = OpenOptions.DIRECT.withExisting(OpenOptions.Existing.OPEN_EXISTING);
            OpenedBlob opened = ctx.open("direct", "data", existingDirect).await();
            try (Blob blob = opened.blob()) {
                assertTrue(blob.directAlignment() > 0);
                assertEquals(42, blob.readAt(0, (int) opened.length()).await()[0]);
            }
            assertThrows(BlobMissingException.class, () -> ctx.open("direct", "other", existingDirect).await());
            assertThrows(NullPointerException.class, () -> new OpenOptions(false, null));
            return null;
        });
    }

    /** Of several tasks on every worker racing to create one blob, exactly one succeeds; the rest are refused. */
    @Conformance
    void testRacingCreatesHaveOneWinner(Runtimes rt) {
        rt.runner().start(ctx -> {
            for (int round = 0; round < 3; round++) {
                String name = "lock-" + round;
                List<Handle<Boolean>> racers = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    racers.add(ctx.child("racer" + round + "_" + i).spawnOn(i % ctx.workers(), c -> {
                        try {
                            c.open("race", name, OpenOptions.CREATE_NEW).await().blob().close();
                            return true;
                        } catch (BlobExistsException lost) {
                            return false;
                        }
                    }));
                }
                int winners = 0;
                for (Handle<Boolean> racer : racers) {
                    winners += racer.await() ? 1 : 0;
                }
                assertEquals(1, winners, "creates of " + name + " that succeeded");
            }
            return null;
        });
    }
}
