package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.sim.audit.Auditor;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A buffered blob's read asks the page cache at the call in the simulator as on runtime-uring ({@code
 * EngineBlob.readCached}, the simulated {@code preadv2} with {@code RWF_NOWAIT}): when the seed says the pages are
 * cached the read completes in place, with no ring read; when not, it goes through the ring. Either way the bytes
 * are the ones written. What a user relies on: the path production takes for a read of cached data is the one the
 * simulator explores.
 */
class ReadAtTheCallTest {

    private static final int BLOCKS = 40;
    private static final int SIZE = 512;

    /** A block of {@link #SIZE} bytes, each {@code value}. */
    private static byte[] filled(int value) {
        byte[] block = new byte[SIZE];
        java.util.Arrays.fill(block, (byte) value);
        return block;
    }

    /** Writes blocks, reads each back and checks it; the traced run's events. */
    private static List<Auditor.Event> writeAndReadBack(double inlineCompletionRate) {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(9)
                .kernelBehavior(KernelBehavior.DEFAULT.withInlineCompletionRate(inlineCompletionRate)).build())
                .traced();
        runner.start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                for (int i = 0; i < BLOCKS; i++) {
                    blob.writeAt((long) i * SIZE, filled(i)).await();
                }
                for (int i = 0; i < BLOCKS; i++) {
                    assertArrayEquals(filled(i), blob.readAt((long) i * SIZE, SIZE).await(), "block " + i);
                }
            }
            return null;
        });
        return runner.trace();
    }

    /**
     * The events of {@code kind} whose field {@code field} (of the trace's payload: its fields in hex, separated by
     * spaces) is {@code name}.
     */
    private static long count(List<Auditor.Event> events, String kind, int field, String name) {
        String hex = java.util.HexFormat.of().formatHex(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return events.stream().filter(event -> event.kind().equals(kind)
                && event.payload().split(" ", -1).length > field && event.payload().split(" ", -1)[field].equals(hex))
                .count();
    }

    private static long readsAtTheCall(List<Auditor.Event> events) {
        return count(events, "sys", 0, "preadv2");
    }

    private static long ringReads(List<Auditor.Event> events) {
        return count(events, "ring.complete", 2, "READ");
    }

    @Test
    void readsOfCachedPagesCompleteAtTheCallAndTheRestThroughTheRing() {
        List<Auditor.Event> cached = writeAndReadBack(1);
        long asked = readsAtTheCall(cached);
        long ringReads = ringReads(cached);
        // Every read asks first; the worker's budget of turns in place sends one read in 33 through the ring.
        assertTrue(asked >= BLOCKS - 2 && ringReads <= 2, asked + " reads at the call, " + ringReads
                + " ring reads, for " + BLOCKS + " reads of cached pages");

        // A read at the call is audited with its payload, as a ring read's completion is: the bytes it returned
        // (the trace shows a long field's first bytes and its length).
        String blockSevenStarts = java.util.HexFormat.of().formatHex(filled(7), 0, 16);
        String preadv2 = java.util.HexFormat.of().formatHex("preadv2".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(cached.stream().anyMatch(event -> event.kind().equals("sys")
                && event.payload().startsWith(preadv2 + " ") && event.payload().contains(" " + blockSevenStarts)
                && event.payload().endsWith("(" + SIZE + ")")), "no read at the call audited with block 7's bytes");

        List<Auditor.Event> uncached = writeAndReadBack(0);
        assertEquals(BLOCKS, ringReads(uncached), "no page found cached: every read by the ring");
        assertTrue(readsAtTheCall(uncached) >= BLOCKS - 2, "each read still asked at the call first");
    }
}
