package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.StorageIoException;
import dev.lockstep.WriteOptions;
import dev.lockstep.engine.io.DurabilityPermit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code WriteOptions.SYNC} writes in the simulator: concurrent ones of one open share flushes (each, once its
 * bytes are written, joins the open's group sync, see {@code DurabilityPermit}), and the simulator's crash model,
 * which keeps exactly what the flushes it saw made durable, agrees that every acknowledged one is durable; a
 * flush that fails fails every write waiting for it, and none of them is acknowledged.
 */
class SyncWriteGroupTest {
    private static final int WRITERS = 32;
    private static final int RECORD = 64;

    private static byte[] record(int writer, int round) {
        byte[] bytes = new byte[RECORD];
        Arrays.fill(bytes, (byte) (writer * 7 + round));
        return bytes;
    }

    /** 32 fibers on two workers, one SYNC write each at once: fewer flushes than writes, every byte read back. */
    @Test
    void concurrentSyncWritesOfOneOpenShareFlushes() {
        for (long seed = 1; seed <= 8; seed++) {
            SimConfig config = SimConfig.builder().seed(seed).workers(2).build();
            long[] flushes = SimRunner.of(config).start(ctx -> {
                try (Blob blob = ctx.open("p", "shared").await().blob()) {
                    long before = DurabilityPermit.of(blob).flushes();
                    List<Handle<Void>> writers = new ArrayList<>();
                    for (int writer = 0; writer < WRITERS; writer++) {
                        int index = writer;
                        writers.add(ctx.child("writer" + writer).spawnOn(writer % 2, child -> {
                            blob.writeAt((long) index * RECORD, new byte[][] {record(index, 1)}, WriteOptions.SYNC)
                                    .await();
                            return null;
                        }));
                    }
                    for (Handle<Void> writer : writers) {
                        writer.await();
                    }
                    for (int writer = 0; writer < WRITERS; writer++) {
                        assertArrayEquals(record(writer, 1), blob.readAt((long) writer * RECORD, RECORD).await());
                    }
                    return new long[] {DurabilityPermit.of(blob).flushes() - before};
                }
            });
            long checkedSeed = seed;
            assertTrue(flushes[0] >= 1 && flushes[0] <= WRITERS / 4, () -> "seed " + checkedSeed + ": " + WRITERS
                    + " concurrent SYNC writes made " + flushes[0] + " flushes");
        }
    }

    /**
     * Fibers on two workers append rounds with SYNC writes until the machine crashes at a seeded moment: after the
     * crash each fiber's last acknowledged round is on disk (a later one may be too: another write's flush may have
     * covered it before its own operation completed).
     */
    @Test
    void everyAcknowledgedSyncWriteSurvivesTheCrash() {
        AcknowledgedRounds.assertAcknowledgedRoundsSurviveTheCrash(6, 12, (blob, offset, bytes) ->
                blob.writeAt(offset, new byte[][] {bytes}, WriteOptions.SYNC).await());
    }

    /**
     * Every flush fails (EIO) once the blob is open: each of the concurrent SYNC writes fails with a
     * {@link StorageIoException} naming the blob — the one whose flush failed with the kernel's error, the others
     * waiting for it, or refused after it, with the poisoned open's — none is acknowledged, and a later sync of the
     * open is refused.
     */
    @Test
    void aFailedFlushFailsEverySyncWriteWaitingForIt() {
        for (long seed = 1; seed <= 4; seed++) {
            SimConfig config = SimConfig.builder().seed(seed).workers(2).build();
            List<String> failures = SimRunner.of(config).start(ctx -> {
                try (Blob blob = ctx.open("p", "failing").await().blob()) {
                    SimRunner.control(ctx).storageFaults(StorageFaults.builder().syncRate(1.0).build());
                    List<Handle<String>> writers = new ArrayList<>();
                    for (int writer = 0; writer < WRITERS; writer++) {
                        int index = writer;
                        writers.add(ctx.child("writer" + writer).spawnOn(writer % 2, child -> {
                            StorageIoException failed = assertThrows(StorageIoException.class, () -> blob.writeAt(
                                    (long) index * RECORD, new byte[][] {record(index, 1)}, WriteOptions.SYNC)
                                    .await());
                            return failed.getMessage();
                        }));
                    }
                    List<String> messages = new ArrayList<>();
                    for (Handle<String> writer : writers) {
                        messages.add(writer.await());
                    }
                    StorageIoException refused = assertThrows(StorageIoException.class, () -> blob.sync().await());
                    assertTrue(refused.getMessage().contains("an earlier sync of this open failed"),
                            refused.getMessage());
                    return messages;
                }
            });
            assertEquals(WRITERS, failures.size());
            for (String message : failures) {
                assertTrue(message.contains("p/failing") && message.contains("EIO"), message);
            }
        }
    }

    /**
     * Where concurrent SYNC writes' flushes are issued is decided by the seed alone: each seed run twice gives the
     * same digest and the same number of flushes.
     */
    @Test
    void syncWriteRunsReplayFromTheirSeed() {
        for (long seed = 1; seed <= 3; seed++) {
            String[] first = flushesAndDigest(seed);
            String[] second = flushesAndDigest(seed);
            assertArrayEquals(first, second, "seed " + seed);
        }
    }

    private static String[] flushesAndDigest(long seed) {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).workers(2).build());
        long flushes = runner.start(ctx -> {
            try (Blob blob = ctx.open("p", "replayed").await().blob()) {
                List<Handle<Void>> writers = new ArrayList<>();
                for (int writer = 0; writer < WRITERS; writer++) {
                    int index = writer;
                    writers.add(ctx.child("writer" + writer).spawnOn(writer % 2, child -> {
                        for (int round = 0; round < 3; round++) {
                            blob.writeAt((long) (round * WRITERS + index) * RECORD,
                                    new byte[][] {record(index, round)}, WriteOptions.SYNC).await();
                        }
                        return null;
                    }));
                }
                for (Handle<Void> writer : writers) {
                    writer.await();
                }
                return DurabilityPermit.of(blob).flushes();
            }
        });
        return new String[] {Long.toString(flushes), runner.digest()};
    }
}
