package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.OpenedBlob;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link Fault#CORRUPTION} and {@link Fault#MISDIRECTED_WRITES}: a reader that checksums each record together with
 * its position never returns a wrong value, and finds the corruption; one that does not is caught returning wrong
 * values within a few seeds.
 */
class SilentCorruptionDetectionTest {
    private static final int RECORDS = 200;
    private static final int RECORD = 12;
    private static final FaultConfig CORRUPTING = FaultConfig.parse("corruption+misdirected-writes@5");

    /** What one run read back. */
    record Outcome(int wrongValuesAccepted, int detected) {
    }

    private static int crc(long slot, long value) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(16).putLong(slot).putLong(value).array());
        return (int) crc.getValue();
    }

    /**
     * Writes value {@code i} at slot {@code i}, each record {@code [crc32c(slot, value) u32][value u64]} and synced,
     * then reads every record back on its own: a checksummed reader refuses a record whose checksum does not match
     * (the bits were flipped, or the write meant for this slot landed elsewhere, or another slot's landed here).
     */
    private static Outcome writeAndReadBack(Context ctx, boolean checksummed) {
        OpenedBlob opened = ctx.open("records", "log").await();
        try (Blob log = opened.blob()) {
            for (long i = 0; i < RECORDS; i++) {
                log.writeAt(i * RECORD, ByteBuffer.allocate(RECORD).putInt(crc(i, i)).putLong(i).array()).await();
                log.sync().await();
            }
            int wrong = 0;
            int detected = 0;
            for (long i = 0; i < RECORDS; i++) {
                ByteBuffer record = ByteBuffer.wrap(log.readAt(i * RECORD, RECORD).await());
                int storedCrc = record.getInt();
                long value = record.getLong();
                if (checksummed && storedCrc != crc(i, value)) {
                    detected++;
                    continue;
                }
                if (value != i) {
                    wrong++;
                }
            }
            return new Outcome(wrong, detected);
        }
    }

    @Test
    void aReaderThatChecksumsRecordAndPositionNeverAcceptsAWrongValueAndDetectsTheCorruption() {
        int detected = 0;
        for (long seed = 1; seed <= 20; seed++) {
            Outcome outcome = Simulations.run(seed, CORRUPTING, ctx -> writeAndReadBack(ctx, true));
            assertEquals(0, outcome.wrongValuesAccepted(), "seed " + seed + " accepted a wrong value");
            detected += outcome.detected();
        }
        assertTrue(detected >= 10, "20 seeds of corruption and misdirected writes, detected " + detected);
    }

    @Test
    void aReaderWithoutChecksumsIsCaughtReturningWrongValuesWithinFiveSeeds() {
        long firstFailing = -1;
        for (long seed = 1; seed <= 5 && firstFailing < 0; seed++) {
            if (Simulations.run(seed, CORRUPTING, ctx -> writeAndReadBack(ctx, false)).wrongValuesAccepted() > 0) {
                firstFailing = seed;
            }
        }
        assertTrue(firstFailing > 0, "no seed of 5 caught the unchecksummed reader");
    }

    @Test
    void withoutTheCorruptionFaultsNothingIsWrongAndNothingDetected() {
        for (long seed = 1; seed <= 5; seed++) {
            assertEquals(new Outcome(0, 0), Simulations.run(seed, FaultConfig.ALL.withIntensity(0),
                    ctx -> writeAndReadBack(ctx, true)));
        }
    }

    @Test
    void theCorruptionFaultsAreOnlyEverNamed() {
        assertFalse(FaultConfig.ALL.has(Fault.CORRUPTION) || FaultConfig.ALL.has(Fault.MISDIRECTED_WRITES));
        for (long seed = 0; seed < 200; seed++) {
            FaultConfig drawn = FaultConfig.swarm(seed);
            assertFalse(drawn.has(Fault.CORRUPTION) || drawn.has(Fault.MISDIRECTED_WRITES), drawn.toString());
        }
        assertEquals("all", FaultConfig.parse("all").toString());
        FaultConfig named = FaultConfig.parse("all+corruption");
        assertTrue(named.has(Fault.CORRUPTION) && named.has(Fault.CRASH) && !named.has(Fault.MISDIRECTED_WRITES));
        assertEquals("all+corruption", named.toString());
        assertEquals(named, FaultConfig.parse(named.toString()));
        assertEquals("corruption+misdirected-writes@5.0", CORRUPTING.toString());
        assertEquals(0.01, CORRUPTING.storageFaults().misdirectedWriteRate(), 1e-12);
        assertEquals(0.0, FaultConfig.ALL.storageFaults().corruptReadRate());
    }
}
