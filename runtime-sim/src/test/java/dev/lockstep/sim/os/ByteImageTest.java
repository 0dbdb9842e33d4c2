package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A simulated file's bytes read back as written, whether its pages are near the start (the array of pages) or far
 * out (past 1 GiB, the sorted map), and a truncation across both cuts exactly: what every read, sync and crash of
 * the simulated file system relies on.
 */
class ByteImageTest {

    private static final long FAR = 3L << 30; // past the pages kept in the array

    private static byte[] read(ByteImage image, long offset, int length) {
        byte[] out = new byte[length];
        int count = image.read(offset, out, 0, length);
        return java.util.Arrays.copyOf(out, count);
    }

    @Test
    void nearAndFarPagesReadBackAndGapsReadAsZeros() {
        ByteImage image = new ByteImage();
        image.write(4090, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 10); // across a page boundary
        image.write(FAR + 4094, new byte[] {11, 12, 13, 14}, 0, 4);
        assertEquals(FAR + 4098, image.size());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, read(image, 4090, 10));
        assertArrayEquals(new byte[] {0, 0, 11, 12, 13, 14}, read(image, FAR + 4092, 6));
        assertArrayEquals(new byte[8], read(image, 1L << 30, 8), "a gap reads as zeros");
    }

    @Test
    void truncatingAcrossBothKindsOfPageCutsExactlyAndAnExtensionReadsZeros() {
        ByteImage image = new ByteImage();
        image.write(0, new byte[] {1, 2, 3, 4, 5, 6}, 0, 6);
        image.write(FAR, new byte[] {7, 8}, 0, 2);
        image.resize(3);
        image.resize(FAR + 2);
        assertArrayEquals(new byte[] {1, 2, 3, 0, 0, 0}, read(image, 0, 6));
        assertArrayEquals(new byte[] {0, 0}, read(image, FAR, 2));
    }

    @Test
    void aCopyIsIndependentOfItsOriginal() {
        ByteImage image = new ByteImage();
        image.write(10, new byte[] {1}, 0, 1);
        image.write(FAR, new byte[] {2}, 0, 1);
        ByteImage copy = image.copy();
        image.write(10, new byte[] {9}, 0, 1);
        image.write(FAR, new byte[] {9}, 0, 1);
        assertArrayEquals(new byte[] {1}, read(copy, 10, 1));
        assertArrayEquals(new byte[] {2}, read(copy, FAR, 1));
        copy.write(11, new byte[] {8}, 0, 1);
        copy.resize(5);
        assertArrayEquals(new byte[] {9, 0}, read(image, 10, 2), "the copy's writes leave the original alone");
    }

    @Test
    void aSharedPageIsNeverWrittenThroughAndReadsBackAsWritten() {
        // A journal's data kept as the page of the page cache and of the disk image: writing, truncating or copying
        // either image changes neither the other nor the array they share.
        byte[] data = new byte[4096];
        data[0] = 1;
        data[4095] = 2;
        byte[] kept = data.clone();
        ByteImage live = new ByteImage();
        ByteImage durable = new ByteImage();
        live.writeShared(8192, data);
        durable.writeShared(8192, data);
        live.write(8192, new byte[] {7}, 0, 1);
        live.resize(8192 + 100);
        assertArrayEquals(kept, data);
        assertArrayEquals(kept, read(durable, 8192, 4096));
        assertArrayEquals(new byte[] {7, 0, 0}, read(live, 8192, 3));
        assertEquals(8192 + 100, live.size());
        durable.copy().write(8192 + 4095, new byte[] {3}, 0, 1);
        assertArrayEquals(kept, read(durable, 8192, 4096));
        assertArrayEquals(kept, data);
        ByteImage unaligned = new ByteImage();
        unaligned.writeShared(1, data); // not a page at a page boundary: copied
        unaligned.write(1, new byte[] {5}, 0, 1);
        assertArrayEquals(kept, data);
        assertEquals(4097, unaligned.size());
    }
}
