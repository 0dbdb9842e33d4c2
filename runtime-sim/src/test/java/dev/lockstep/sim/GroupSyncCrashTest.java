package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Group sync in the simulator: the engine's syncs coalesce (one flush completes every sync waiting when it was
 * issued, see {@code DurabilityPermit}), and the simulator's crash model keeps exactly what the flushes it saw
 * made durable. So whatever a crash cuts, every sync that returned covered its fiber's write: each fiber's
 * last acknowledged round is on disk after the crash (a later round may be too, made durable by another
 * fiber's flush before its own sync returned).
 */
class GroupSyncCrashTest {
    private static final int FIBERS = 6;

    @Test
    void everyAcknowledgedSyncSurvivesTheCrashWhenSyncsCoalesce() {
        for (long seed = 1; seed <= 12; seed++) {
            long[] acknowledged = new long[FIBERS];
            long[] syncs = new long[1];
            SimConfig config = SimConfig.builder().seed(seed).workers(2).crashWithin(Duration.ofMillis(300)).build();
            Recovered<Void> recovered = SimRunner.of(config).startAndRecover(ctx -> {
                try (Blob blob = ctx.open("p", "group").await().blob()) {
                    List<Handle<Void>> writers = new ArrayList<>();
                    for (int fiber = 0; fiber < FIBERS; fiber++) {
                        int index = fiber;
                        writers.add(ctx.child("writer" + fiber).spawnOn(fiber % 2, child -> {
                            for (long round = 1; ; round++) {
                                blob.writeAt((long) index * Long.BYTES, ByteBuffer.allocate(Long.BYTES)
                                        .putLong(round).array()).await();
                                blob.sync().await();
                                acknowledged[index] = round;
                                syncs[0]++;
                            }
                        }));
                    }
                    for (Handle<Void> writer : writers) {
                        writer.await();
                    }
                    return null;
                }
            });
            long checkedSeed = seed;
            assertTrue(recovered.outcome().crashed(), () -> "seed " + checkedSeed + ": " + recovered.outcome());
            List<byte[]> files = new ArrayList<>();
            recovered.checkpoint().storage().files().forEach((path, contents) -> {
                if (path.startsWith("/lockstep/p/")) {
                    files.add(contents);
                }
            });
            assertEquals(1, files.size());
            ByteBuffer durable = ByteBuffer.wrap(files.getFirst());
            for (int fiber = 0; fiber < FIBERS; fiber++) {
                long onDisk = durable.remaining() >= (fiber + 1) * Long.BYTES ? durable.getLong(fiber * Long.BYTES) : 0;
                assertTrue(onDisk >= acknowledged[fiber], "seed " + seed + ", fiber " + fiber + ": round "
                        + acknowledged[fiber] + " was synced, the disk has round " + onDisk);
            }
            assertTrue(syncs[0] > FIBERS, "seed " + seed + ": the crash came after some syncs (" + syncs[0] + ")");
        }
    }
}
