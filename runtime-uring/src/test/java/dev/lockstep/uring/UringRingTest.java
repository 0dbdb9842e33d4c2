package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(FdLeakCheck.class)
class UringRingTest extends RingFixture {
    private static final UringKernel KERNEL = new UringKernel();
    /** Waits on the test's own thread are bounded; unbounded ones run in {@link #onOwnRing}. */
    private static final long FIVE_SECONDS_NANOS = 5_000_000_000L;

    @TempDir
    Path temp;

    /**
     * The fixture's ring writes through the ring, never inline ({@link InlineWrite}, tested by
     * {@code UringInlineWriteTest}), so the writes here test the ring's encoding and batching.
     */
    @Override
    UringRing openRing() {
        return openWithoutInlineWrites(8);
    }

    /** A ring opened with the inline write bound 0, the property restored after. */
    static UringRing openWithoutInlineWrites(int entries) {
        String before = System.getProperty(InlineWrite.MAX_BYTES_PROPERTY);
        System.setProperty(InlineWrite.MAX_BYTES_PROPERTY, "0");
        try {
            return KERNEL.openRing(entries);
        } finally {
            if (before == null) {
                System.clearProperty(InlineWrite.MAX_BYTES_PROPERTY);
            } else {
                System.setProperty(InlineWrite.MAX_BYTES_PROPERTY, before);
            }
        }
    }

    /**
     * Enters name the ring by a slot registered with its thread, and closing the ring drops the registration,
     * which holds the ring's file: without that, a closed ring's memory would stay with the thread until it ends.
     * (io_uring_enter of a registered slot that holds no ring fails with EBADF.)
     */
    @Test
    void theRingsFdIsRegisteredWithItsThreadAndTheRegistrationGoesAtClose() {
        assumeTrue(ring.ringFdRegistered(), "the kernel registers ring fds (IORING_REGISTER_RING_FDS, Linux 5.18+)");
        MemorySegment callState = Libc.newCallState(Arena.ofAuto());
        long enterRegistered = 16;
        assertTrue(Libc.syscall(callState, Libc.SYS_IO_URING_ENTER, ring.enterDescriptor(), 0, 0, enterRegistered,
                0, 0) >= 0, "an enter through the registered slot");
        UringRing second = KERNEL.openRing(8);
        int secondSlot = second.enterDescriptor();
        assertTrue(secondSlot != ring.enterDescriptor(), "each ring has its own slot");
        Submission nop = new Submission();
        nop.userData = 7;
        assertTrue(second.stage(nop));
        assertEquals(1, second.enter(true, FIVE_SECONDS_NANOS, completions));
        second.close();
        assertEquals(-Errno.EBADF, Libc.syscall(callState, Libc.SYS_IO_URING_ENTER, secondSlot, 0, 0,
                enterRegistered, 0, 0), "the closed ring's slot still held a ring");
    }

    /** Skips a test on a ring the kernel did not set up with {@code IORING_SETUP_TASKRUN_FLAG}. */
    private void assumeTaskWorkFlagged() {
        assumeTrue((ring.setupFlagBits() & UringSetup.SETUP_TASKRUN_FLAG) != 0,
                () -> "the kernel takes IORING_SETUP_TASKRUN_FLAG with DEFER_TASKRUN (Linux 6.1+); rings use "
                        + ring.setupFlags());
    }

    /**
     * An enter that has nothing to submit and does not wait is left out when the kernel flags no task work: no
     * {@code io_uring_enter} at all. One that submits, or waits, is made.
     */
    @Test
    void anEnterWithNothingToDoIsLeftOutWhileTheKernelFlagsNoTaskWork() {
        assumeTaskWorkFlagged();
        ring.enter(false, 0, completions); // whatever the opening left
        long before = ring.enterCallsMade();
        for (int turn = 0; turn < 10; turn++) {
            assertEquals(0, ring.enter(false, 0, completions), "nothing is in flight");
        }
        assertEquals(0, ring.enterCallsMade() - before, "io_uring_enter calls in 10 turns with nothing to do");

        Submission nop = new Submission();
        nop.userData = 3;
        stage(nop);
        before = ring.enterCallsMade();
        ring.enter(false, 0, completions);
        assertEquals(1, ring.enterCallsMade() - before, "a turn with a NOP to submit makes its enter");
        assertEquals(0, completions.all().get(3L).result(), "the NOP");

        before = ring.enterCallsMade();
        assertEquals(0, ring.enter(true, 1_000_000, completions), "a wait of 1 ms for nothing");
        assertEquals(1, ring.enterCallsMade() - before, "a waiting turn makes its enter");
    }

    /**
     * With DEFER_TASKRUN a read that waited on a file is completed by task work that runs only when this thread
     * enters, so the kernel must flag it and the next enter that neither submits nor waits must make the call and
     * deliver it. (Left out regardless of the flag, the read below is never delivered by any number of enters that
     * do not wait: the worker's loop that keeps running fibers and never waits would never see it.)
     */
    @Test
    void aReadCompletedByTaskWorkIsDeliveredByAnEnterThatNeitherSubmitsNorWaits() {
        assumeTaskWorkFlagged();
        MemorySegment callState = Libc.newCallState(Arena.ofAuto());
        int eventFd = keep((int) Libc.check(Libc.invoke(callState, state ->
                (int) Libc.EVENTFD.invokeExact(state, 0, Libc.EFD_CLOEXEC)), "eventfd", "test"));
        stage(Submissions.whole(Opcode.READ, eventFd, allocate(8), 5));
        ring.enter(false, 0, completions);
        assertFalse(completions.all().containsKey(5L), "nothing was written, so the read must still wait");
        long before = ring.enterCallsMade();
        assertEquals(0, ring.enter(false, 0, completions), "an enter with nothing to do delivers nothing");
        assertEquals(0, ring.enterCallsMade() - before, "io_uring_enter calls while the read waits");

        MemorySegment one = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_LONG, 1L);
        assertEquals(8, Libc.writeIgnoringErrno(eventFd, one, 8), "the eventfd's write");
        // The write woke the read's poll on this thread, before it returned: its task work is queued and flagged.
        before = ring.enterCallsMade();
        assertEquals(1, ring.enter(false, 0, completions), "the read, delivered without waiting");
        assertEquals(1, ring.enterCallsMade() - before, "io_uring_enter calls once the task work is flagged");
        assertEquals(8, completions.all().get(5L).result());
    }

    /**
     * A ring set up without {@code TASKRUN_FLAG} (a kernel that refuses it) cannot tell pending task work, so every
     * turn makes its enter, and a read completed by task work is delivered by the next turn that does not wait.
     */
    @Test
    void aRingWithoutTheTaskRunFlagEntersEveryTurn() {
        UringRing plain;
        UringSetup.refuseSetupFlags(UringSetup.SETUP_TASKRUN_FLAG);
        try {
            plain = openWithoutInlineWrites(8);
        } finally {
            UringSetup.refuseSetupFlags(0);
        }
        try {
            assertFalse(plain.setupFlags().contains("TASKRUN_FLAG"), plain::setupFlags);
            Completions seen = new Completions();
            plain.enter(false, 0, seen);
            long before = plain.enterCallsMade();
            for (int turn = 0; turn < 10; turn++) {
                assertEquals(0, plain.enter(false, 0, seen), "nothing is in flight");
            }
            assertEquals(10, plain.enterCallsMade() - before, "io_uring_enter calls in 10 turns with nothing to do");

            MemorySegment callState = Libc.newCallState(Arena.ofAuto());
            int eventFd = keep((int) Libc.check(Libc.invoke(callState, state ->
                    (int) Libc.EVENTFD.invokeExact(state, 0, Libc.EFD_CLOEXEC)), "eventfd", "test"));
            stageOn(plain, Submissions.whole(Opcode.READ, eventFd, allocate(8), 6));
            plain.enter(false, 0, seen);
            assertFalse(seen.all().containsKey(6L), "nothing was written, so the read must still wait");
            MemorySegment one = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_LONG, 1L);
            assertEquals(8, Libc.writeIgnoringErrno(eventFd, one, 8), "the eventfd's write");
            assertEquals(1, plain.enter(false, 0, seen), "the read, delivered without waiting");
            assertEquals(8, seen.all().get(6L).result());
        } finally {
            plain.close();
        }
    }

    @Test
    void anEnterThatFailsReportsItsErrnoThoughItFirstAsksWithoutIt() {
        // The ring's slot is emptied behind its back (IORING_UNREGISTER_RING_FDS, 21, one io_uring_rsrc_update of
        // 16 bytes), so its next enter through the slot fails with EBADF: the first ask, without errno, sees only
        // -1, and the repeat must name the real error.
        MemorySegment callState = Libc.newCallState(Arena.ofAuto());
        MemorySegment update = Arena.ofAuto().allocate(16, 8);
        update.set(ValueLayout.JAVA_INT, 0, ring.enterDescriptor());
        assertEquals(1, Libc.syscall(callState, Libc.SYS_IO_URING_REGISTER, ring.ringFd(), 21, update.address(), 1,
                0, 0));
        assertEquals(-1, Libc.syscallUncaptured(Libc.SYS_IO_URING_ENTER, ring.enterDescriptor(), 0, 0, 16, 0, 0),
                "without errno, a failure is -1");

        // Something to submit, so that the enter is made (one with nothing to do is left out).
        Submission nop = new Submission();
        nop.userData = 9;
        stage(nop);
        KernelException failure = assertThrows(KernelException.class, () -> ring.enter(false, 0, completions));
        assertEquals(Errno.EBADF, failure.errno(), failure::getMessage);
        assertTrue(failure.getMessage().contains("io_uring_enter"), failure::getMessage);
    }

    @Test
    void nopCompletesWithZeroUnderItsUserData() {
        Submission nop = new Submission();
        nop.userData = 42;
        stage(nop);

        int delivered = ring.enter(true, FIVE_SECONDS_NANOS, completions);

        assertEquals(1, delivered);
        assertEquals(new Completions.Completion(42, 0, 0), completions.all().get(42L));
    }

    @Test
    void bytesWrittenThroughTheRingAreReadBackAndReadingPastTheEndGivesZero() {
        int fd = keep(SYSTEM.open(temp.resolve("data").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        MemorySegment written = bytes("hello, ring");
        Submission write = Submissions.whole(Opcode.WRITE, fd, written, 1);
        write.offset = 5;
        stage(write);
        assertEquals(11, completions.result(ring, 1));
        assertEquals(16, SYSTEM.size(fd));

        MemorySegment read = allocate(64);
        Submission readBack = Submissions.whole(Opcode.READ, fd, read, 2);
        readBack.offset = 5;
        stage(readBack);
        Submission pastEnd = Submissions.whole(Opcode.READ, fd, allocate(8), 3);
        pastEnd.offset = 16;
        stage(pastEnd);
        completions.awaitAll(ring, 2, 3);

        assertEquals(11, completions.all().get(2L).result());
        assertEquals("hello, ring", text(read, 11));
        assertEquals(0, completions.all().get(3L).result());
    }

    @Test
    void fsyncAndFdatasyncComplete() {
        int fd = keep(SYSTEM.open(temp.resolve("synced").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        stage(Submissions.whole(Opcode.WRITE, fd, bytes("durable"), 1));
        assertEquals(7, completions.result(ring, 1));

        Submission fdatasync = Submissions.whole(Opcode.FSYNC, fd, MemorySegment.NULL, 2);
        fdatasync.flags = Submission.FSYNC_DATASYNC;
        stage(fdatasync);
        stage(Submissions.whole(Opcode.FSYNC, fd, MemorySegment.NULL, 3));
        completions.awaitAll(ring, 2, 3);

        assertEquals(0, completions.all().get(2L).result());
        assertEquals(0, completions.all().get(3L).result());
    }

    @Test
    void aWriteWithDsyncCompletes() {
        int fd = keep(SYSTEM.open(temp.resolve("dsync").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        Submission write = Submissions.whole(Opcode.WRITE, fd, bytes("now"), 1);
        write.rwFlags = Submission.RWF_DSYNC;
        stage(write);

        assertEquals(3, completions.result(ring, 1));
    }

    @Test
    void acceptAndConnectThroughTheRingMakeAPairThatSendsAndReceives() {
        Pair pair = connectedPair();
        SYSTEM.noDelay(pair.client());
        assertEquals(pair.listening(), SYSTEM.peerAddress(pair.client()));
        assertEquals(SYSTEM.localAddress(pair.client()), SYSTEM.peerAddress(pair.accepted()));

        stage(Submissions.whole(Opcode.SEND, pair.client(), bytes("ping"), 1));
        MemorySegment received = allocate(16);
        stage(Submissions.whole(Opcode.RECV, pair.accepted(), received, 2));
        completions.awaitAll(ring, 1, 2);
        assertEquals(4, completions.all().get(1L).result());
        assertEquals(4, completions.all().get(2L).result());
        assertEquals("ping", text(received, 4));

        SYSTEM.shutdownWrite(pair.client());
        stage(Submissions.whole(Opcode.RECV, pair.accepted(), allocate(16), 3));
        assertEquals(0, completions.result(ring, 3), "end of stream after the peer shut down writing");
    }

    @Test
    void aRecvWaitingForDataIsCancelled() {
        Pair pair = connectedPair();
        stage(Submissions.whole(Opcode.RECV, pair.accepted(), allocate(16), 7));
        ring.enter(false, 0, completions);
        assertFalse(completions.all().containsKey(7L), "nothing was sent, so the receive must still wait");

        stage(Submissions.cancel(7, 8));
        completions.awaitAll(ring, 7, 8);

        assertEquals(-Errno.ECANCELED, completions.all().get(7L).result());
        assertEquals(0, completions.all().get(8L).result());
    }

    @Test
    void cancellingWhatIsNotInFlightReportsEnoent() {
        stage(Submissions.cancel(12345, 1));

        assertEquals(-Errno.ENOENT, completions.result(ring, 1));
    }

    @Test
    void aFullRingRefusesToStageUntilEnterSubmits() {
        try (UringRing single = KERNEL.openRing(1)) {
            Submission nop = new Submission();
            nop.userData = 1;
            assertTrue(single.stage(nop));
            nop.userData = 2;
            assertFalse(single.stage(nop), "a ring of one entry holds one staged entry");

            single.enter(false, 0, completions);
            assertTrue(single.stage(nop), "enter submitted the first entry, freeing its slot");
            completions.awaitAll(single, 1, 2);
            assertEquals(2, completions.all().size());
        }
    }

    @Test
    void everyFourthReadOrWriteIsSubmittedWhenStagedAndItsCompletionStillComesFromEnter() {
        int fd = keep(SYSTEM.open(temp.resolve("batches").toString(), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        int blocks = 4 * UringRing.READ_WRITE_SUBMIT_BATCH;
        try (UringRing small = openWithoutInlineWrites(UringRing.READ_WRITE_SUBMIT_BATCH)) {
            // A ring of 4 entries holds only 4 staged entries; a fifth can be staged without an enter only
            // because the fourth write submitted all four.
            List<MemorySegment> written = new ArrayList<>();
            for (int block = 0; block < blocks; block++) {
                MemorySegment bytes = bytes("block " + (char) ('a' + block));
                written.add(bytes);
                Submission write = Submissions.whole(Opcode.WRITE, fd, bytes, 100 + block);
                write.offset = 7L * block;
                assertTrue(small.stage(write), () -> "staging " + write + " needed an enter");
            }
            Submission nop = new Submission();
            for (long userData = 1; userData <= UringRing.READ_WRITE_SUBMIT_BATCH; userData++) {
                nop.userData = userData;
                assertTrue(small.stage(nop));
            }
            nop.userData = 99;
            assertFalse(small.stage(nop), "NOPs are not submitted when staged: the ring is full of them");
            completions.awaitAll(small, java.util.stream.LongStream.range(100, 100 + blocks).toArray());
            completions.awaitAll(small, 1, 2, 3, 4);

            List<MemorySegment> read = new ArrayList<>();
            for (int block = 0; block < blocks; block++) {
                MemorySegment into = allocate(7);
                read.add(into);
                Submission readBack = Submissions.whole(Opcode.READ, fd, into, 200 + block);
                readBack.offset = 7L * block;
                assertTrue(small.stage(readBack), () -> "staging " + readBack + " needed an enter");
            }
            completions.awaitAll(small, java.util.stream.LongStream.range(200, 200 + blocks).toArray());

            for (int block = 0; block < blocks; block++) {
                assertEquals(7, completions.all().get(100L + block).result());
                assertEquals(7, completions.all().get(200L + block).result());
                assertEquals(text(written.get(block), 7), text(read.get(block), 7));
            }
        }
    }

    @Test
    void aTimedWaitWithNothingInFlightReturnsZero() {
        assertEquals(0, ring.enter(true, 10_000_000L, completions));
        assertEquals(0, ring.enter(true, 0, completions));
        assertEquals(0, ring.enter(false, 0, completions));
    }

    /** A wait that a completion did not end would run past the test's 60 s timeout and fail it. */
    @Test
    void aCompletionEndsATimedWaitEarly() {
        stage(new Submission());
        assertEquals(1, ring.enter(true, 90_000_000_000L, completions));
        assertFalse(ring.lastEnterWoken(), "ended by the completion, not by a wake");
    }

    /** Runs {@code body} on a fresh platform thread that owns its own ring; fails instead of hanging. */
    private static void onOwnRing(Duration limit, RingBody body) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread owner = Thread.ofPlatform().daemon().name("ring-owner").start(() -> {
            try (UringRing own = KERNEL.openRing(8)) {
                body.run(own);
            } catch (Throwable thrown) {
                failure.set(thrown);
            }
        });
        owner.join(limit);
        if (owner.isAlive()) {
            fail("the ring's owner was still blocked after " + limit);
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    @FunctionalInterface
    private interface RingBody {
        void run(UringRing ring) throws Exception;
    }

    @Test
    void aWakeFromAnotherThreadEndsAnUnboundedWait() throws InterruptedException {
        onOwnRing(Duration.ofSeconds(10), own -> {
            for (int round = 0; round < 20; round++) {
                long delayMillis = round == 0 ? 50 : 1;
                CountDownLatch aboutToWait = new CountDownLatch(1);
                Thread waker = Thread.ofPlatform().start(() -> {
                    try {
                        aboutToWait.await();
                        Thread.sleep(delayMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    own.wake();
                });
                aboutToWait.countDown();
                assertEquals(0, own.enter(true, Long.MAX_VALUE, completions));
                waker.join();
            }
        });
    }

    @Test
    void aWakeBeforeEnterIsNotLost() throws InterruptedException {
        onOwnRing(Duration.ofSeconds(10), own -> {
            own.wake();
            assertEquals(0, own.enter(true, Long.MAX_VALUE, completions));

            Thread waker = Thread.ofPlatform().start(own::wake);
            waker.join();
            assertEquals(0, own.enter(true, Long.MAX_VALUE, completions));
        });
    }

    @Test
    void wakesAreConsumedSoALaterWaitStillWaits() throws InterruptedException {
        onOwnRing(Duration.ofSeconds(10), own -> {
            for (int i = 0; i < 100; i++) {
                own.wake();
            }
            own.enter(true, Long.MAX_VALUE, completions);
            // Any wake-up completions still queued are drained here; afterwards a timed wait must time out.
            own.enter(false, 0, completions);
            for (int wait = 0; wait < 2; wait++) {
                own.enter(true, 20_000_000L, completions);
                assertFalse(own.lastEnterWoken(), "wait " + wait + " ended on a wake-up consumed before it");
            }
            assertTrue(completions.all().isEmpty(), "wake-ups must never reach the sink");
        });
    }

    @Test
    void aWakeDoesNotDisturbCompletionsInFlight() throws InterruptedException {
        onOwnRing(Duration.ofSeconds(10), own -> {
            own.wake();
            Submission nop = new Submission();
            for (long userData = 1; userData <= 8; userData++) {
                nop.userData = userData;
                assertTrue(own.stage(nop));
            }
            completions.awaitAll(own, 1, 2, 3, 4, 5, 6, 7, 8);
            assertEquals(8, completions.all().size());
        });
    }

    @Test
    void completionsBeyondTheCompletionQueueAreNotLost() {
        try (UringRing single = KERNEL.openRing(1)) {
            Submission nop = new Submission();
            int submitted = 0;
            for (long userData = 1; userData <= 10; userData++) {
                nop.userData = userData;
                assertTrue(single.stage(nop));
                submitted += single.submitWithoutReaping();
            }
            assertEquals(10, submitted);

            int delivered = single.enter(false, 0, completions);

            assertEquals(10, delivered, "a completion queue of 2 overflowed into the kernel's backlog");
            assertEquals(10, completions.all().size());
        }
    }

    @Test
    void aThrowingSinkLeavesTheRemainingCompletionsForTheNextEnter() {
        Submission nop = new Submission();
        for (long userData = 1; userData <= 3; userData++) {
            nop.userData = userData;
            stage(nop);
        }
        List<Long> seen = new ArrayList<>();
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () ->
                ring.enter(true, FIVE_SECONDS_NANOS, (userData, result, flags) -> {
                    seen.add(userData);
                    if (userData == 1) {
                        throw new IllegalStateException("sink failed");
                    }
                }));
        assertEquals("sink failed", thrown.getMessage());

        completions.awaitAll(ring, 2, 3);
        assertEquals(List.of(1L), seen);
        assertEquals(2, completions.all().size());
    }

    @Test
    void stageRejectsWhatTheKernelCannotUse() {
        try (Arena arena = Arena.ofConfined()) {
            Submission heap = Submissions.whole(Opcode.READ, 0, MemorySegment.ofArray(new byte[8]), 1);
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.stage(heap)).getMessage()
                    .contains("native"));

            Submission tooLong = Submissions.whole(Opcode.WRITE, 0, arena.allocate(8), 1);
            tooLong.length = 9;
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.stage(tooLong)).getMessage()
                    .contains("9"));

            Submission negativeOffset = Submissions.whole(Opcode.READ, 0, arena.allocate(8), 1);
            negativeOffset.offset = -1;
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.stage(negativeOffset)).getMessage()
                    .contains("-1"));

            Submission reserved = new Submission();
            reserved.userData = UringRing.WAKE_USER_DATA;
            assertThrows(IllegalArgumentException.class, () -> ring.stage(reserved));

            // A path must end in its NUL within the buffer; a statx needs the whole struct.
            MemorySegment unterminated = arena.allocate(4);
            unterminated.fill((byte) 'a');
            Submission openat = Submissions.whole(Opcode.OPENAT, Submission.AT_FDCWD, unterminated, 1);
            openat.length = 4;
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.stage(openat)).getMessage()
                    .contains("NUL byte after its 4 bytes"));
            Submission statx = Submissions.whole(Opcode.STATX, 0, arena.allocate(64), 1);
            statx.length = 64;
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.stage(statx)).getMessage()
                    .contains("was 64"));
        }
        assertEquals(0, ring.enter(false, 0, completions), "nothing was staged");
    }

    @Test
    void onlyTheOwnerDrivesTheRingButAnyThreadWakesIt() throws InterruptedException {
        onOwnRing(Duration.ofSeconds(10), own -> {
            AtomicReference<Throwable> stageFailure = new AtomicReference<>();
            AtomicReference<Throwable> wakeFailure = new AtomicReference<>();
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    own.stage(new Submission());
                } catch (Throwable thrown) {
                    stageFailure.set(thrown);
                }
                try {
                    own.wake();
                } catch (Throwable thrown) {
                    wakeFailure.set(thrown);
                }
            });
            other.join();
            // A virtual thread is refused too unless it runs on the owner (as the owner's fibers do): this one's
            // carrier is one of the JDK's own.
            AtomicReference<Throwable> virtualFailure = new AtomicReference<>();
            Thread.ofVirtual().start(() -> {
                try {
                    own.stage(new Submission());
                } catch (Throwable thrown) {
                    virtualFailure.set(thrown);
                }
            }).join();

            assertTrue(stageFailure.get() instanceof WrongThreadException, () -> "got " + stageFailure.get());
            assertTrue(virtualFailure.get() instanceof WrongThreadException, () -> "got " + virtualFailure.get());
            assertEquals(null, wakeFailure.get());
            assertEquals(0, own.enter(true, Long.MAX_VALUE, completions), "the wake ends the wait");
        });
    }

    @Test
    void nowFollowsTheWallClockAndNeverGoesBackwards() {
        long wall = System.currentTimeMillis() * 1_000_000L;
        long now = ring.nowNanos();
        assertTrue(Math.abs(now - wall) < TimeUnit.SECONDS.toNanos(1), () -> now + " vs " + wall);
        long previous = now;
        for (int i = 0; i < 10_000; i++) {
            long next = ring.nowNanos();
            assertTrue(next >= previous);
            previous = next;
        }
    }

    @Test
    void aFreedBufferIsReusedZeroedOnTheOwningThreadAndAnyThreadMayAllocateAndFree() throws Exception {
        MemorySegment dirty = ring.allocate(4096);
        dirty.fill((byte) 0x5a);
        long address = dirty.address();
        ring.free(dirty);
        // The same size class (4 KiB) gets the cached block back, zeroed and of the size asked for.
        MemorySegment reused = allocate(4000);
        assertEquals(address, reused.address(), "a 4 KiB buffer freed on the owner is reused");
        assertEquals(4000, reused.byteSize());
        assertTrue(Bytes.allZero(reused), "reused memory is zeroed");

        AtomicReference<MemorySegment> fromOtherThread = new AtomicReference<>();
        Thread other = Thread.ofPlatform().start(() -> fromOtherThread.set(ring.allocate(100)));
        other.join();
        MemorySegment foreign = fromOtherThread.get();
        assertEquals(100, foreign.byteSize());
        assertTrue(Bytes.allZero(foreign));
        // Freed on the owner, a buffer allocated elsewhere joins the cache of its class (128 bytes) too.
        ring.free(foreign);
        assertEquals(foreign.address(), allocate(128).address());
        Thread freer = Thread.ofPlatform().start(() -> ring.free(ring.allocate(64 * 1024 + 1)));
        freer.join();
    }

    /** Reads a segment byte by byte: what a caller would see. */
    private static final class Bytes {
        static boolean allZero(MemorySegment memory) {
            for (long index = 0; index < memory.byteSize(); index++) {
                if (memory.get(ValueLayout.JAVA_BYTE, index) != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    @Test
    void allocatedMemoryIsZeroedNativeAndOfTheAskedSize() {
        MemorySegment memory = allocate(4096);
        assertTrue(memory.isNative());
        assertEquals(4096, memory.byteSize());
        assertArrayEquals(new byte[4096], memory.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0, allocate(0).byteSize());
        assertThrows(IllegalArgumentException.class, () -> ring.allocate(-1));
        assertDoesNotThrow(() -> ring.free(MemorySegment.NULL));
    }

    @Test
    void closeIsIdempotentAndAClosedRingRefusesWorkButIgnoresWakes() {
        UringRing closing = KERNEL.openRing(2);
        closing.close();
        closing.close();
        assertDoesNotThrow(closing::wake);
        assertThrows(IllegalStateException.class, () -> closing.stage(new Submission()));
        assertThrows(IllegalStateException.class, () -> closing.enter(false, 0, completions));
    }

    @Test
    void theSetupFlagsInEffectAreNamed() {
        String flags = ring.setupFlags();
        System.out.println("io_uring setup flags in effect: " + flags);
        assertTrue(flags.contains("CQSIZE") || flags.equals("none"), flags);
        assertTrue(ring.toString().contains(flags));
    }
}
