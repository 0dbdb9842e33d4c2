package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The crash check that durable writes share: fibers on two workers each write their round number, over and over,
 * into their own 8 bytes of one blob, acknowledging each round with a durable call, until the simulator crashes the
 * machine; then each fiber's last acknowledged round must be on the recovered disk (a later round may be too, made
 * durable by another fiber's flush before its own call returned).
 */
final class AcknowledgedRounds {
    /** Writes one round durably: returns once the bytes are acknowledged durable. */
    @FunctionalInterface
    interface DurableWrite {
        void write(Blob blob, long offset, byte[] bytes);
    }

    private AcknowledgedRounds() {}

    /**
     * Runs seeds 1 to {@code seeds}, each crashing within 300 ms of simulated time, and checks every acknowledged
     * round survived.
     *
     * @param fibers the writing fibers, spread over two workers
     * @param seeds how many seeds
     * @param durableWrite one round's durable write
     */
    static void assertAcknowledgedRoundsSurviveTheCrash(int fibers, int seeds, DurableWrite durableWrite) {
        for (long seed = 1; seed <= seeds; seed++) {
            long[] acknowledged = new long[fibers];
            long[] rounds = new long[1];
            SimConfig config = SimConfig.builder().seed(seed).workers(2).crashWithin(Duration.ofMillis(300)).build();
            Recovered<Void> recovered = SimRunner.of(config).startAndRecover(ctx -> {
                try (Blob blob = ctx.open("p", "rounds").await().blob()) {
                    List<Handle<Void>> writers = new ArrayList<>();
                    for (int fiber = 0; fiber < fibers; fiber++) {
                        int index = fiber;
                        writers.add(ctx.child("writer" + fiber).spawnOn(fiber % 2, child -> {
                            for (long round = 1; ; round++) {
                                durableWrite.write(blob, (long) index * Long.BYTES,
                                        ByteBuffer.allocate(Long.BYTES).putLong(round).array());
                                acknowledged[index] = round;
                                rounds[0]++;
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
            for (int fiber = 0; fiber < fibers; fiber++) {
                long onDisk = durable.remaining() >= (fiber + 1) * Long.BYTES ? durable.getLong(fiber * Long.BYTES)
                        : 0;
                assertTrue(onDisk >= acknowledged[fiber], "seed " + seed + ", fiber " + fiber + ": round "
                        + acknowledged[fiber] + " was acknowledged durable, the disk has round " + onDisk);
            }
            assertTrue(rounds[0] > fibers, "seed " + seed + ": the crash came after some rounds (" + rounds[0] + ")");
        }
    }
}
