package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.SystemCalls;
import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What the simulator keeps of a file's unsynced writes is bounded by the file's size, not by how many writes
 * there were: overwrites of the same bytes are compacted once the journal outgrows the file, and a sync still makes
 * exactly the latest bytes durable.
 */
class UnsyncedJournalBoundTest {
    private static final int BLOB = 256 * 1024;
    private static final int WRITE = 4096;

    private static byte[] readAll(SimFileSystem fs, SimFileSystem.Handle handle, int length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(length);
            assertEquals(length, fs.read(handle, 0, buffer, length));
            return buffer.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void twentyThousandUnsyncedOverwritesKeepAtMostTwiceTheBlobAndSyncTheLatestBytes() {
        SimFileSystem fs = new SimFileSystem(new Generator(1), new Auditor(), StorageFaults.NONE);
        SimFileSystem.Handle handle = fs.open("/blob", SystemCalls.O_CREAT | SystemCalls.O_RDWR);
        SimFileSystem.Handle root = fs.open("/", SystemCalls.O_DIRECTORY);
        assertEquals(0, fs.sync(root, false)); // the name survives the crash below
        fs.close(root);
        Random random = new Random(5); // the test's data, not a simulated decision
        byte[] model = new byte[BLOB];
        random.nextBytes(model);
        assertEquals(BLOB, fs.write(handle, 0, model.clone(), 0, BLOB, false));
        assertEquals(0, fs.sync(handle, false));
        byte[] synced = model.clone();

        long mostRetained = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] data = new byte[WRITE];
            random.nextBytes(data);
            int offset = random.nextInt(BLOB - WRITE + 1); // unaligned too: overlaps that are not whole overwrites
            boolean durable = i % 1000 == 999; // an RWF_DSYNC write now and then
            assertEquals(WRITE, fs.write(handle, offset, data, 0, WRITE, durable));
            System.arraycopy(data, 0, model, offset, WRITE);
            if (i % 64 == 63) {
                mostRetained = Math.max(mostRetained, fs.unsyncedBytes(handle));
            }
        }
        assertTrue(mostRetained <= 2L * PageCache.JOURNAL_BYTES_PER_FILE_BYTE * BLOB + WRITE,
                "retained " + mostRetained + " bytes of 20,000 writes of " + WRITE + " to a " + BLOB + "-byte blob");
        assertArrayEquals(model, readAll(fs, handle, BLOB));
        assertEquals(0, fs.sync(handle, false));
        assertEquals(0, fs.unsyncedBytes(handle));
        fs.close(handle);
        fs.crash(CrashPolicy.ALL_LOST);
        SimFileSystem.Handle reopened = fs.open("/blob", SystemCalls.O_RDWR);
        assertArrayEquals(model, readAll(fs, reopened, BLOB), "the sync made exactly the latest bytes durable");
        assertTrue(!java.util.Arrays.equals(synced, model));
    }

    @Test
    void aFileWrittenFewerTimesThanItsSizeIsNeverCompacted() {
        SimFileSystem fs = new SimFileSystem(new Generator(2), new Auditor(), StorageFaults.NONE);
        SimFileSystem.Handle handle = fs.open("/log", SystemCalls.O_CREAT | SystemCalls.O_RDWR);
        byte[] entry = new byte[100];
        for (int i = 0; i < 5_000; i++) {
            fs.write(handle, (long) i * entry.length, entry, 0, entry.length, false);
        }
        for (int i = 0; i < 300; i++) { // overwrites of the last entries, well within the bound
            fs.write(handle, 0, entry, 0, entry.length, false);
        }
        assertEquals(5_300L * entry.length, fs.unsyncedBytes(handle), "every write kept: appends, then few overwrites");
    }
}
