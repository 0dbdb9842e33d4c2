package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ring's small buffered writes, made with {@code pwrite} when staged instead of through io-wq
 * ({@link InlineWrite}): the bytes are in the file once staged, the completion still comes from the next
 * {@code enter} with the ring's result (bytes written or {@code -errno}), and every other write — past the bound,
 * with per-write flags, not marked {@link Submission#BUFFERED_FILE} (a file opened {@code O_DIRECT},
 * {@code O_DSYNC} or {@code O_SYNC}, a socket) — goes through the ring as before.
 */
@ExtendWith(FdLeakCheck.class)
class UringInlineWriteTest extends RingFixture {
    private static final UringKernel KERNEL = new UringKernel();

    /** {@code submission} marked {@link Submission#BUFFERED_FILE}, as the engine marks a page-cache blob's writes. */
    private static Submission buffered(Submission submission) {
        submission.flags |= Submission.BUFFERED_FILE;
        return submission;
    }

    /** {@code O_DSYNC} and {@code O_SYNC} ({@code __O_SYNC | O_DSYNC}), the same bits on x86-64 and aarch64. */
    private static final int O_DSYNC = Libc.O_DSYNC;
    private static final int O_SYNC = Libc.O_SYNC_BIT | Libc.O_DSYNC;

    @TempDir
    Path temp;

    @Override
    UringRing openRing() {
        return KERNEL.openRing(8);
    }

    @Test
    void aSmallBufferedWriteIsInTheFileWhenStagedAndCompletesFromTheNextEnter() throws Exception {
        int fd = keep(SYSTEM.open(temp.resolve("log").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        Submission write = buffered(Submissions.whole(Opcode.WRITE, fd, bytes("appended"), 1));
        write.offset = 3;
        stage(write);

        assertEquals(1, ring.inlineWrites(), "made when staged");
        assertEquals(11, SYSTEM.size(fd), "the bytes are in the file before any enter");
        assertTrue(completions.all().isEmpty(), "no completion from stage itself");
        assertEquals(1, ring.enter(false, 0, completions), "delivered by the next enter, which does not wait");
        assertEquals(8, completions.all().get(1L).result());
        byte[] file = Files.readAllBytes(temp.resolve("log"));
        assertEquals("appended", new String(file, 3, 8, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aWriteOfExactlyTheBoundIsInlineAndOneByteMoreGoesThroughTheRing() {
        int fd = keep(SYSTEM.open(temp.resolve("bound").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        int bound = InlineWrite.DEFAULT_MAX_BYTES;
        MemorySegment buffer = allocate(bound + 1);
        stage(buffered(Submissions.whole(Opcode.WRITE, fd, buffer.asSlice(0, bound), 1)));
        assertEquals(1, ring.inlineWrites());
        stage(buffered(Submissions.whole(Opcode.WRITE, fd, buffer, 2)));
        assertEquals(1, ring.inlineWrites(), "one byte past the bound: the ring's");
        completions.awaitAll(ring, 1, 2);
        assertEquals(bound, completions.all().get(1L).result());
        assertEquals(bound + 1, completions.all().get(2L).result());
    }

    @Test
    void writesWithFlagsOrToAnODirectFileOrASocketGoThroughTheRing() {
        int fd = keep(SYSTEM.open(temp.resolve("flags").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        Submission dsync = buffered(Submissions.whole(Opcode.WRITE, fd, bytes("durable"), 1));
        dsync.rwFlags = Submission.RWF_DSYNC;
        stage(dsync);
        Submission dontCache = buffered(Submissions.whole(Opcode.WRITE, fd, bytes("passing"), 2));
        dontCache.rwFlags = Submission.RWF_DONTCACHE;
        stage(dontCache);

        int direct = keep(SYSTEM.open(temp.resolve("direct").toString(),
                SystemCalls.O_RDWR | SystemCalls.O_CREAT | SystemCalls.O_DIRECT));
        MemorySegment aligned = Arena.ofAuto().allocate(4096, 4096);
        stage(Submissions.whole(Opcode.WRITE, direct, aligned, 3));

        Pair pair = connectedPair();
        stage(Submissions.whole(Opcode.WRITE, pair.client(), bytes("to a peer"), 4));
        assertEquals(0, ring.inlineWrites(), "per-write flags, or not marked a buffered file");

        completions.awaitAll(ring, 1, 2, 3, 4);
        assertEquals(7, completions.all().get(1L).result());
        int dontCacheResult = completions.all().get(2L).result();
        assertTrue(dontCacheResult == 7 || dontCacheResult == -Errno.EOPNOTSUPP,
                () -> "RWF_DONTCACHE writes or is refused by an older kernel, was " + dontCacheResult);
        int directResult = completions.all().get(3L).result();
        assertTrue(directResult == 4096 || directResult == -Errno.EINVAL,
                () -> "an O_DIRECT write, or EINVAL where the file system has no O_DIRECT, was " + directResult);
        assertEquals(9, completions.all().get(4L).result());
        MemorySegment received = allocate(16);
        stage(Submissions.whole(Opcode.RECV, pair.accepted(), received, 5));
        assertEquals(9, completions.result(ring, 5));
        assertEquals("to a peer", text(received, 9));
    }

    @Test
    void unmarkedWritesGoThroughTheRingWhateverTheFile() throws Exception {
        int dsync = keep(SYSTEM.open(temp.resolve("dsync").toString(),
                SystemCalls.O_RDWR | SystemCalls.O_CREAT | O_DSYNC));
        int sync = keep(SYSTEM.open(temp.resolve("sync").toString(),
                SystemCalls.O_RDWR | SystemCalls.O_CREAT | O_SYNC));
        stage(Submissions.whole(Opcode.WRITE, dsync, bytes("dsync"), 1));
        stage(Submissions.whole(Opcode.WRITE, sync, bytes("sync"), 2));
        int plain = keep(SYSTEM.open(temp.resolve("plain").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        stage(Submissions.whole(Opcode.WRITE, plain, bytes("plain"), 3));
        assertEquals(0, ring.inlineWrites(), "without BUFFERED_FILE a write is the ring's");

        completions.awaitAll(ring, 1, 2, 3);
        assertEquals(5, completions.all().get(1L).result());
        assertEquals(4, completions.all().get(2L).result());
        assertEquals(5, completions.all().get(3L).result());
        assertEquals("dsync", Files.readString(temp.resolve("dsync")));
        assertEquals("sync", Files.readString(temp.resolve("sync")));
    }

    @Test
    void aRingOpenedWithThePropertyZeroWritesEverythingThroughTheRing() throws Exception {
        int fd = keep(SYSTEM.open(temp.resolve("property").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        try (UringRing off = UringRingTest.openWithoutInlineWrites(8)) {
            Submission write = buffered(Submissions.whole(Opcode.WRITE, fd, bytes("through"), 1));
            assertTrue(off.stage(write));
            assertEquals(0, off.inlineWrites(), "bound 0: nothing inline");
            assertEquals(0, SYSTEM.size(fd), "nothing written before the ring submits it");
            completions.awaitAll(off, 1);
            assertEquals(7, completions.all().get(1L).result());
            assertEquals(0, off.inlineWrites());
        }
        assertEquals("through", Files.readString(temp.resolve("property")));
    }

    @Test
    void aFailedInlineWriteCompletesWithTheErrnoTheRingWouldGive() throws Exception {
        Path path = temp.resolve("read-only");
        Files.writeString(path, "kept");
        int readOnly = keep(SYSTEM.open(path.toString(), 0));
        stage(buffered(Submissions.whole(Opcode.WRITE, readOnly, bytes("lost"), 1)));

        assertEquals(1, ring.inlineWrites());
        assertEquals(-Errno.EBADF, completions.result(ring, 1));
        assertEquals("kept", Files.readString(path));
    }

    @Test
    void aSinkThatThrowsIsNotGivenTheSameCompletionAgainAndTheRestWaitForTheNextDelivery() {
        int fd = keep(SYSTEM.open(temp.resolve("throwing").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        InlineWrite inline = new InlineWrite(Libc.newCallState(Arena.ofAuto()), InlineWrite.DEFAULT_MAX_BYTES);
        for (long userData = 1; userData <= 3; userData++) {
            assertTrue(inline.tryWrite(buffered(Submissions.whole(Opcode.WRITE, fd, bytes("w" + userData), userData))));
        }
        List<Long> seen = new ArrayList<>();
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> inline.deliver((u, r, f) -> {
            seen.add(u);
            throw new IllegalStateException("sink failed on " + u);
        }));
        assertEquals("sink failed on 1", thrown.getMessage());

        assertEquals(2, inline.deliver((u, r, f) -> seen.add(u)), "the two after the failed one, once each");
        assertEquals(0, inline.deliver((u, r, f) -> seen.add(u)), "nothing left");
        assertEquals(List.of(1L, 2L, 3L), seen, "each completion once, in the order made");
    }

    /**
     * A write a signal interrupted ({@code EINTR}) is made again, the same bytes at the same place, until it is
     * made; after {@link InlineWrite#EINTR_RETRIES} retries the {@code EINTR} stands as the write's result.
     */
    @Test
    void aWriteInterruptedBySignalsIsMadeAgainABoundedNumberOfTimes() {
        List<String> calls = new ArrayList<>();
        int[] interruptions = {3};
        InlineWrite inline = new InlineWrite(InlineWrite.DEFAULT_MAX_BYTES, (fd, address, length, offset) -> {
            calls.add(fd + " " + address + " " + length + " " + offset);
            return interruptions[0]-- > 0 ? -Errno.EINTR : length;
        });
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(5);
            Submission write = buffered(Submissions.whole(Opcode.WRITE, 7, data, 1));
            write.offset = 40;
            assertEquals(5, inline.write(write), "made on the fourth attempt");
            String call = "7 " + data.address() + " 5 40";
            assertEquals(List.of(call, call, call, call), calls, "the same write each time");

            calls.clear();
            interruptions[0] = Integer.MAX_VALUE;
            assertEquals(-Errno.EINTR, inline.write(write), "a signal every time: EINTR stands");
            assertEquals(InlineWrite.EINTR_RETRIES + 1, calls.size(), "the first attempt and every retry");

            calls.clear();
            InlineWrite failing = new InlineWrite(InlineWrite.DEFAULT_MAX_BYTES, (fd, address, length, offset) -> {
                calls.add("call");
                return -Errno.EBADF;
            });
            assertEquals(-Errno.EBADF, failing.write(write), "another error is not retried");
            assertEquals(1, calls.size());
        }
    }

    @Test
    void aBoundOfZeroTurnsInlineWritesOffAndABadBoundIsRefusedNamingIt() {
        int fd = keep(SYSTEM.open(temp.resolve("off").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        InlineWrite off = new InlineWrite(Libc.newCallState(Arena.ofAuto()), 0);
        Submission small = buffered(Submissions.whole(Opcode.WRITE, fd, bytes("x"), 1));
        assertEquals(InlineWrite.NOT_INLINE, off.write(small));
        assertEquals(0, SYSTEM.size(fd), "nothing written");

        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> new InlineWrite(Libc.newCallState(Arena.ofAuto()), -1));
        assertTrue(negative.getMessage().contains("was -1"), negative::getMessage);

        String before = System.getProperty(InlineWrite.MAX_BYTES_PROPERTY);
        try {
            System.setProperty(InlineWrite.MAX_BYTES_PROPERTY, "64k");
            IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class,
                    InlineWrite::configuredMaxBytes);
            assertTrue(notANumber.getMessage().contains("'64k'"), notANumber::getMessage);
            System.setProperty(InlineWrite.MAX_BYTES_PROPERTY, "0");
            assertEquals(0, InlineWrite.configuredMaxBytes());
        } finally {
            if (before == null) {
                System.clearProperty(InlineWrite.MAX_BYTES_PROPERTY);
            } else {
                System.setProperty(InlineWrite.MAX_BYTES_PROPERTY, before);
            }
        }
    }
}
