package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fibers on every worker write to and sync one open blob at once, for a bounded number of rounds. Each sync
 * registers with the open's durability permit inside the worker's critical section, so this is where a
 * structure under the critical section that can block (a monitor another worker holds) wedges the runner.
 * What a user relies on: the run ends, every sync completes exactly once, the data written is there, and the
 * process's fds and io_uring mappings are what they were before.
 */
class UringSharedSyncSoakTest {
    private static final int WORKERS = 4;
    private static final int FIBERS_PER_WORKER = 4;
    /** Rounds per fiber: about two seconds on a loaded two-core machine, tens of thousands of syncs. */
    private static final int ROUNDS = 12000;

    @TempDir
    Path directory;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard
    void fibersOnEveryWorkerSyncOneOpenBlobWithoutHanging() {
        TreeMap<Integer, String> fdsBefore = OpenDescriptors.fds();
        List<String> ringsBefore = OpenDescriptors.ringMappings();
        AtomicLong syncsCompleted = new AtomicLong();
        int fibers = WORKERS * FIBERS_PER_WORKER;
        long[] perFiber = UringRunner.builder().workers(WORKERS).ringEntries(8).storage(directory).build()
                .start(ctx -> {
                    Blob blob = ctx.open("soak", "shared").await().blob();
                    try {
                        List<Handle<Long>> handles = new ArrayList<>();
                        for (int fiber = 0; fiber < fibers; fiber++) {
                            int index = fiber;
                            handles.add(ctx.child("syncer" + fiber).spawnOn(fiber % WORKERS, child -> {
                                long synced = 0;
                                for (int round = 0; round < ROUNDS; round++) {
                                    // Every few rounds a write: some syncs reach the kernel, some need not.
                                    if (round % 64 == 0) {
                                        blob.writeAt((long) index * 8, new byte[] {(byte) index, (byte) round})
                                                .await();
                                    }
                                    blob.sync().await();
                                    synced++;
                                    syncsCompleted.incrementAndGet();
                                }
                                return synced;
                            }));
                        }
                        long[] counts = new long[fibers];
                        for (int fiber = 0; fiber < fibers; fiber++) {
                            counts[fiber] = handles.get(fiber).await();
                        }
                        for (int fiber = 0; fiber < fibers; fiber++) {
                            byte[] record = blob.readAt((long) fiber * 8, 2).await();
                            if (record[0] != (byte) fiber) {
                                throw new AssertionError("fiber " + fiber + "'s write is missing: " + record[0]);
                            }
                        }
                        return counts;
                    } finally {
                        blob.close();
                    }
                });
        for (int fiber = 0; fiber < fibers; fiber++) {
            assertEquals(ROUNDS, perFiber[fiber], "syncs completed by fiber " + fiber);
        }
        assertEquals((long) fibers * ROUNDS, syncsCompleted.get(), "syncs completed in all");
        TreeMap<Integer, String> fdsAfter = OpenDescriptors.fds();
        assertEquals(fdsBefore.size(), fdsAfter.size(), () -> "open fds after the run\nbefore: " + fdsBefore
                + "\nafter:  " + fdsAfter);
        List<String> ringsAfter = OpenDescriptors.ringMappings();
        assertEquals(ringsBefore.size(), ringsAfter.size(), () -> "io_uring mappings after the run\nbefore: "
                + ringsBefore + "\nafter:  " + ringsAfter);
    }
}
