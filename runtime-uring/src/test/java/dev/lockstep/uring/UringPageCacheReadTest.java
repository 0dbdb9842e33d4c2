package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ring's read without waiting ({@link UringRing#readWithoutWaiting}, {@link PageCacheRead}) answers the same
 * below and above {@link PageCacheRead#CRITICAL_MAX_BYTES}, where the call is made as a critical downcall and as
 * an ordinary one: the cached bytes, fewer at the end of the file, 0 past it, {@code -errno} for a bad fd.
 */
@ExtendWith(FdLeakCheck.class)
class UringPageCacheReadTest extends RingFixture {
    private static final UringKernel KERNEL = new UringKernel();
    private static final int FILE_BYTES = 4 * PageCacheRead.CRITICAL_MAX_BYTES;

    @TempDir
    Path temp;

    @Override
    UringRing openRing() {
        return KERNEL.openRing(8);
    }

    @Test
    void aCachedReadAnswersTheSameAsACriticalAndAsAnOrdinaryDowncall() throws Exception {
        byte[] contents = new byte[FILE_BYTES];
        new SplittableRandom(3).nextBytes(contents);
        Path path = temp.resolve("cached");
        Files.write(path, contents); // just written: in the page cache
        int fd = keep(SYSTEM.open(path.toString(), SystemCalls.O_RDWR));
        MemorySegment buffer = allocate(2L * PageCacheRead.CRITICAL_MAX_BYTES + 16);
        for (int length : new int[] {1, 4096, PageCacheRead.CRITICAL_MAX_BYTES, PageCacheRead.CRITICAL_MAX_BYTES + 1,
                2 * PageCacheRead.CRITICAL_MAX_BYTES}) {
            int offset = 4096 + 7;
            assertEquals(length, ring.readWithoutWaiting(fd, buffer, 16, length, offset), length + " bytes");
            assertArrayEquals(java.util.Arrays.copyOfRange(contents, offset, offset + length),
                    buffer.asSlice(16, length).toArray(ValueLayout.JAVA_BYTE), length + " bytes");
        }
        // At the end: what is there, then nothing.
        assertEquals(100, ring.readWithoutWaiting(fd, buffer, 0, 4096, FILE_BYTES - 100L));
        assertEquals(100, ring.readWithoutWaiting(fd, buffer, 0, PageCacheRead.CRITICAL_MAX_BYTES + 1,
                FILE_BYTES - 100L));
        assertEquals(0, ring.readWithoutWaiting(fd, buffer, 0, 4096, FILE_BYTES));
        // No fd: the error, by either call (a closed fd's number could be taken meanwhile by another thread).
        assertEquals(-Errno.EBADF, ring.readWithoutWaiting(-1, buffer, 0, 4096, 0));
        assertEquals(-Errno.EBADF, ring.readWithoutWaiting(-1, buffer, 0, PageCacheRead.CRITICAL_MAX_BYTES + 1, 0));
    }
}
