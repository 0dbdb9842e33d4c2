package dev.lockstep.sim.os;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.InvalidConfigException;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link StorageFaults}' silent corruption: flipped bits on read and at rest, misdirected writes. */
class SilentCorruptionTest {
    private static final int LENGTH = 1024;

    private static byte[] pattern(int salt) {
        byte[] bytes = new byte[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            bytes[i] = (byte) (i * 31 + salt);
        }
        return bytes;
    }

    private static int differingBits(byte[] a, byte[] b) {
        int bits = 0;
        for (int i = 0; i < a.length; i++) {
            bits += Integer.bitCount((a[i] ^ b[i]) & 0xff);
        }
        return bits;
    }

    private static byte[] read(SimFileSystem fs, SimFileSystem.Handle file, long offset, int length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(length);
            int read = fs.read(file, offset, buffer, length);
            assertEquals(length, read);
            return buffer.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void aCorruptedReadFlipsOneBitOfWhatItReturnsAndLeavesTheFileAlone() {
        for (long seed = 1; seed <= 20; seed++) {
            SimFileSystem fs = new Harness(seed).kernel().fileSystem();
            SimFileSystem.Handle file = fs.open("/f", O_CREAT | O_RDWR);
            byte[] data = pattern((int) seed);
            assertEquals(LENGTH, fs.write(file, 0, data, 0, LENGTH, false));
            fs.setFaults(StorageFaults.builder().corruptReadRate(1.0).build());
            assertEquals(1, differingBits(data, read(fs, file, 0, LENGTH)), "seed " + seed);
            assertArrayEquals(data, fs.contents("/f"), "the file keeps its bytes");
            fs.setFaults(StorageFaults.NONE);
            assertArrayEquals(data, read(fs, file, 0, LENGTH), "a read without the fault is right again");
        }
    }

    @Test
    void aCorruptedWriteStoresOneFlippedBitThatEveryLaterReadAndTheDiskSee() {
        for (long seed = 1; seed <= 20; seed++) {
            SimFileSystem fs = new Harness(seed).kernel().fileSystem();
            SimFileSystem.Handle file = fs.open("/f", O_CREAT | O_RDWR);
            fs.sync(fs.open("/", 0), false);
            byte[] data = pattern((int) seed);
            fs.setFaults(StorageFaults.builder().corruptWriteRate(1.0).build());
            assertEquals(LENGTH, fs.write(file, 0, data, 0, LENGTH, false), "the write reports success");
            fs.setFaults(StorageFaults.NONE);
            assertEquals(1, differingBits(data, read(fs, file, 0, LENGTH)), "seed " + seed);
            assertEquals(0, fs.sync(file, false));
            fs.crash(CrashPolicy.ALL_LOST);
            assertEquals(1, differingBits(data, fs.contents("/f")), "the flipped bit is what the disk kept");
        }
    }

    @Test
    void aMisdirectedWriteLandsAtAnotherSectorAndTheBytesItMeantToReplaceKeepTheirOldContents() {
        int landedElsewhere = 0;
        for (long seed = 1; seed <= 20; seed++) {
            SimFileSystem fs = new Harness(seed).kernel().fileSystem();
            SimFileSystem.Handle file = fs.open("/f", O_CREAT | O_RDWR);
            byte[] old = pattern(0);
            for (int block = 0; block < 4; block++) {
                fs.write(file, (long) block * LENGTH, old, 0, LENGTH, false);
            }
            byte[] fresh = pattern(7);
            fs.setFaults(StorageFaults.builder().misdirectedWriteRate(1.0).build());
            assertEquals(LENGTH, fs.write(file, LENGTH, fresh, 0, LENGTH, false), "the write reports success");
            fs.setFaults(StorageFaults.NONE);
            byte[] contents = fs.contents("/f");
            int found = -1;
            for (int at = 0; at + LENGTH <= contents.length; at += SimFileSystem.SECTOR_BYTES) {
                if (Arrays.equals(contents, at, at + LENGTH, fresh, 0, LENGTH)) {
                    found = at;
                }
            }
            assertNotEquals(-1, found, "seed " + seed + ": the data landed somewhere, sector-aligned");
            assertNotEquals(LENGTH, found, "seed " + seed + ": not where it was meant to go");
            if (found >= 2 * LENGTH || found + LENGTH <= LENGTH) {
                assertArrayEquals(old, Arrays.copyOfRange(contents, LENGTH, 2 * LENGTH),
                        "seed " + seed + ": the meant block keeps its old bytes");
                landedElsewhere++;
            }
        }
        assertTrue(landedElsewhere > 0, "some write landed clear of its block");
    }

    @Test
    void zeroRatesDrawNothingAndTheTextReadsAsBefore() {
        Generator withNone = new Generator(3);
        Generator withZeroCorruption = new Generator(3);
        SimFileSystem plain = new SimFileSystem(withNone, new Auditor(), StorageFaults.NONE);
        SimFileSystem zero = new SimFileSystem(withZeroCorruption, new Auditor(),
                StorageFaults.builder().corruptReadRate(0).corruptWriteRate(0).misdirectedWriteRate(0).build());
        for (SimFileSystem fs : new SimFileSystem[] {plain, zero}) {
            SimFileSystem.Handle file = fs.open("/f", O_CREAT | O_RDWR);
            fs.write(file, 0, pattern(1), 0, LENGTH, false);
            read(fs, file, 0, LENGTH);
        }
        assertEquals(withNone.draws(), withZeroCorruption.draws());
        assertTrue(!StorageFaults.NONE.toString().contains("corrupt"), StorageFaults.NONE.toString());
        assertTrue(StorageFaults.builder().misdirectedWriteRate(0.5).build().toString()
                .contains("misdirectedWriteRate=0.5"));
        InvalidConfigException bad = assertThrows(InvalidConfigException.class,
                () -> StorageFaults.builder().corruptReadRate(1.5).build());
        assertTrue(bad.getMessage().contains("corruptReadRate") && bad.getMessage().contains("1.5"),
                bad.getMessage());
    }
}
