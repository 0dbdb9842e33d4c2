package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobMissingException;
import dev.lockstep.Handle;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.PartitionNameInvalidException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Storage metadata — {@code open} (creating), {@code remove}, {@code scan}, {@code resize} — racing across fibers
 * and workers on every runtime. Metadata runs off the workers and in the order it was admitted per partition, not
 * under one lock: these cases check that what each task sees is still exactly what it did, that an operation
 * admitted after another one on the same partition observes it even when the two are on different workers, and
 * that bad input gets the same typed error, naming the value, whatever else is running.
 */
@Group(ReadmeGroup.METADATA)
class MetadataConformanceTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> names(List<byte[]> raw) {
        return raw.stream().map(name -> new String(name, StandardCharsets.UTF_8)).toList();
    }

    /**
     * Tasks on every worker create, resize, list and remove their own blobs in two shared partitions, three rounds
     * each: every task sees its own blob appear, take its size and disappear, and its second remove fails naming
     * the blob, while the other tasks do the same around it.
     */
    @Conformance
    void testCreateResizeScanRemoveRacingAcrossWorkers(Runtimes rt) {
        rt.runner().start(ctx -> {
            int tasks = 8;
            List<Handle<Integer>> handles = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                String partition = "shared" + (i % 2);
                String name = "task" + i;
                handles.add(ctx.child("task" + i).spawnOn(i % ctx.workers(), c -> {
                    int rounds = 0;
                    for (int round = 0; round < 3; round++) {
                        OpenedBlob opened = c.open(partition, name).await();
                        assertEquals(0, opened.length(), name + " is created afresh in round " + round);
                        try (Blob blob = opened.blob()) {
                            blob.writeAt(0, bytes(name)).await();
                            blob.resize(100 + round).await();
                            assertEquals(100 + round, blob.length());
                            assertTrue(names(c.scan(partition).await()).contains(name), name + " is listed");
                            blob.sync().await();
                        }
                        OpenedBlob reopened = c.open(partition, name).await();
                        reopened.blob().close();
                        assertEquals(100 + round, reopened.length(), "a reopen sees the resize");
                        c.remove(partition, bytes(name)).await();
                        assertFalse(names(c.scan(partition).await()).contains(name), name + " is gone");
                        BlobMissingException twice = assertThrows(BlobMissingException.class,
                                () -> c.remove(partition, bytes(name)).await());
                        assertTrue(twice.getMessage().contains("'" + partition + "/" + name + "'"),
                                twice.getMessage());
                        rounds++;
                    }
                    return rounds;
                }));
            }
            for (Handle<Integer> handle : handles) {
                assertEquals(3, handle.await());
            }
            for (int p = 0; p < 2; p++) {
                assertEquals(List.of(), ctx.scan("shared" + p).await(), "every task removed what it created");
            }
            return null;
        });
    }

    /**
     * A create admitted on one worker and a remove of the same blob admitted afterwards on another (the task
     * that removes is spawned after the open was called, and neither awaits the other): the remove runs after
     * the create, so it finds the blob and the partition ends empty. Then the other way round on a fresh
     * partition: a scan admitted after a remove of the whole partition fails, naming it.
     */
    @Conformance
    void testOperationsOnOnePartitionRunInAdmissionOrderAcrossWorkers(Runtimes rt) {
        rt.runner().start(ctx -> {
            int other = ctx.workers() > 1 ? 1 : 0;
            for (int round = 0; round < 4; round++) {
                String partition = "ordered" + round;
                Operation<OpenedBlob> create = ctx.open(partition, "blob");
                Handle<Void> remover = ctx.child("remover" + round).spawnOn(other, c -> {
                    c.remove(partition, bytes("blob")).await();
                    return null;
                });
                create.await().blob().close();
                remover.await();
                assertEquals(List.of(), ctx.scan(partition).await(), "the remove ran after the create");

                Operation<Void> removePartition = ctx.remove(partition, null);
                Handle<String> scanner = ctx.child("scanner" + round).spawnOn(other, c ->
                        assertThrows(PartitionMissingException.class, () -> c.scan(partition).await()).getMessage());
                removePartition.await();
                String message = scanner.await();
                assertTrue(message.contains("'" + partition + "'"), message);
            }
            return null;
        });
    }

    /**
     * Bad metadata input from tasks on every worker while valid metadata runs beside it: each call fails with the
     * documented typed exception naming the bad value, the same on every runtime, and the valid work completes.
     */
    @Conformance
    void testBadMetadataInputIsRefusedTypedAndNamedWhileOtherMetadataRuns(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<Handle<Void>> handles = new ArrayList<>();
            for (int i = 0; i < 2 * ctx.workers(); i++) {
                int id = i;
                handles.add(ctx.child("valid" + i).spawnOn(i % ctx.workers(), c -> {
                    for (int round = 0; round < 3; round++) {
                        c.open("valid", "blob" + id).await().blob().close();
                        c.remove("valid", bytes("blob" + id)).await();
                    }
                    return null;
                }));
                handles.add(ctx.child("bad" + i).spawnOn(i % ctx.workers(), c -> {
                    PartitionNameInvalidException badName = assertThrows(PartitionNameInvalidException.class,
                            () -> c.open("no/slash" + id, "blob"));
                    assertTrue(badName.getMessage().contains("'no/slash" + id + "'"), badName.getMessage());
                    IllegalArgumentException longName = assertThrows(IllegalArgumentException.class,
                            () -> c.open("valid", new byte[128]));
                    assertTrue(longName.getMessage().contains("128"), longName.getMessage());
                    PartitionMissingException missing = assertThrows(PartitionMissingException.class,
                            () -> c.scan("never" + id).await());
                    assertTrue(missing.getMessage().contains("'never" + id + "'"), missing.getMessage());
                    PartitionMissingException removeMissing = assertThrows(PartitionMissingException.class,
                            () -> c.remove("never" + id, null).await());
                    assertTrue(removeMissing.getMessage().contains("'never" + id + "'"), removeMissing.getMessage());
                    try (Blob blob = c.open("bad" + id, "blob").await().blob()) {
                        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                                () -> blob.resize(-5));
                        assertTrue(negative.getMessage().contains("-5"), negative.getMessage());
                        blob.resize(3).await();
                        assertArrayEquals(new byte[3], blob.readAt(0, 3).await(), "a resize after a refused one");
                    }
                    c.remove("bad" + id, null).await();
                    return null;
                }));
            }
            for (Handle<Void> handle : handles) {
                handle.await();
            }
            assertEquals(List.of(), ctx.scan("valid").await());
            return null;
        });
    }
}
