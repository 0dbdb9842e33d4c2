package dev.lockstep.sim.os;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.StorageFaults;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SimRingTest {

    private static final long LATENCY = 1_000;

    private static Harness harness(long seed) {
        return new Harness(seed);
    }

    private static SimKernel kernel(Harness harness, KernelBehavior behavior) {
        return harness.kernel("127.0.0.1", behavior, StorageFaults.NONE);
    }

    /** Every request waits exactly {@link #LATENCY}: none completes at submission. */
    private static final KernelBehavior FIXED_LATENCY = KernelBehavior.DEFAULT.withLatency(LATENCY, LATENCY)
            .withInlineCompletionRate(0);

    /**
     * The read at the call ({@code preadv2} with {@code RWF_NOWAIT}): at rate 1 it gives the cached bytes, a system
     * call of the kernel; at rate 0, and for a file opened {@code O_DIRECT}, {@code -EAGAIN}; a socket is not a
     * file; bad arguments are refused by name, as runtime-uring's ring refuses them.
     */
    @Test
    void aReadAtTheCallGivesCachedBytesOrSaysEagain() {
        Harness harness = harness(22);
        SimKernel kernel = kernel(harness, FIXED_LATENCY.withInlineCompletionRate(1));
        SimRing ring = kernel.openRing(4);
        assertTrue(ring.readsWithoutWaiting());
        int fd = kernel.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment data = Harness.text(ring, "cached bytes");
        assertEquals(12, harness.run(ring, Submissions.io(Opcode.WRITE, fd, data, 12, 0, 1)));
        MemorySegment into = ring.allocate(16);
        long calls = kernel.systemCalls;
        assertEquals(5, ring.readWithoutWaiting(fd, into, 2, 5, 7));
        assertEquals("bytes", Harness.text(into.asSlice(2), 5));
        assertEquals(calls + 1, kernel.systemCalls, "one system call");
        assertEquals(2, ring.readWithoutWaiting(fd, into, 0, 5, 10), "short at the end of the file");
        assertEquals(0, ring.readWithoutWaiting(fd, into, 0, 5, 12), "at the end of the file");
        IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                () -> ring.readWithoutWaiting(fd, into, 12, 5, 0));
        assertTrue(outside.getMessage().contains("5 bytes at 12"), outside.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> ring.readWithoutWaiting(fd, into, 0, 5, -3));
        assertTrue(negative.getMessage().contains("-3"), negative.getMessage());
        assertEquals(-Errno.EBADF, ring.readWithoutWaiting(999, into, 0, 5, 0));
        int direct = kernel.system().open("/f", O_RDWR | dev.lockstep.kernel.SystemCalls.O_DIRECT);
        assertEquals(-Errno.EAGAIN, ring.readWithoutWaiting(direct, into, 0, 5, 0), "O_DIRECT waits for the device");
        Pair pair = loopback(harness, kernel);
        assertEquals(-Errno.EOPNOTSUPP, pair.ring().readWithoutWaiting(pair.serverFd(), into, 0, 5, 0));

        Harness never = harness(22);
        SimKernel uncached = kernel(never, FIXED_LATENCY);
        SimRing other = uncached.openRing(4);
        int otherFd = uncached.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment otherData = Harness.text(other, "cached bytes");
        assertEquals(12, never.run(other, Submissions.io(Opcode.WRITE, otherFd, otherData, 12, 0, 1)));
        assertEquals(-Errno.EAGAIN, other.readWithoutWaiting(otherFd, other.allocate(16), 0, 5, 0),
                "at rate 0 no page is ever found cached");
    }

    /**
     * Even at an inline completion rate of 1 a durable write ({@code RWF_DSYNC}) waits for the device. A read at the
     * call of cached pages is no device read: with every device read failing it still gives the bytes, while the
     * ring's read fails; and it is cut short at the short read rate as a ring read is.
     */
    @Test
    void aDurableWriteWaitsForTheDeviceAndAReadAtTheCallNeedsNone() {
        Harness harness = harness(23);
        SimKernel kernel = harness.kernel("127.0.0.1", FIXED_LATENCY.withInlineCompletionRate(1),
                StorageFaults.builder().readRate(1.0).build());
        SimRing ring = kernel.openRing(4);
        int fd = kernel.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment data = Harness.text(ring, "cached bytes");
        Submission durable = Submissions.io(Opcode.WRITE, fd, data, 12, 0, 1);
        durable.rwFlags = Submission.RWF_DSYNC;
        Harness.stage(ring, durable);
        List<Long> first = new ArrayList<>();
        ring.enter(false, 0, (userData, result, flags) -> first.add(userData));
        assertEquals(List.of(), first, "an RWF_DSYNC write waits for the device");
        assertEquals(12, harness.await(1).result());
        MemorySegment into = ring.allocate(16);
        assertEquals(12, ring.readWithoutWaiting(fd, into, 0, 12, 0), "cached pages need no device: no injected EIO");
        assertEquals("cached bytes", Harness.text(into, 12));
        assertEquals(-Errno.EIO, harness.run(ring, Submissions.io(Opcode.READ, fd, into, 12, 0, 2)),
                "the ring's read goes to the device, which fails every read");

        Harness shortened = harness(24);
        SimKernel cutting = kernel(shortened, FIXED_LATENCY.withInlineCompletionRate(1).withShortTransfers(1, 0));
        SimRing other = cutting.openRing(4);
        int otherFd = cutting.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment otherData = Harness.text(other, "cached bytes");
        assertEquals(12, shortened.run(other, Submissions.io(Opcode.WRITE, otherFd, otherData, 12, 0, 1)));
        int read = other.readWithoutWaiting(otherFd, other.allocate(16), 0, 12, 0);
        assertTrue(read >= 1 && read < 12, "a read at the call cut short: " + read);
    }

    /**
     * With an inline completion rate of 1, what io_uring tries at once completes in the {@code enter} that submits
     * it: a send, a buffered write and a buffered read; a receive with nothing arrived still waits for its data,
     * and a no-op its latency. With the rate 0 ({@link #FIXED_LATENCY}) the same send waits its latency.
     */
    /**
     * runtime-uring writes a WRITE marked {@link Submission#BUFFERED_FILE} with {@code pwrite} at once, trusting the
     * mark; the simulated kernel, which knows every fd, refuses a mark on anything but a file opened without
     * {@code O_DIRECT}, naming the fd, and a marked write of a buffered file goes through as an unmarked one does.
     */
    @Test
    void aWriteMarkedBufferedFileMustNameABufferedFile() {
        Harness harness = harness(23);
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        Pair pair = loopback(harness, kernel);
        SimRing ring = pair.ring();
        int buffered = kernel.system().open("/f", O_RDWR | O_CREAT);
        int direct = kernel.system().open("/f", O_RDWR | dev.lockstep.kernel.SystemCalls.O_DIRECT);
        MemorySegment data = Harness.text(ring, "hello");
        Submission marked = Submissions.io(Opcode.WRITE, buffered, data, 5, 0, 1);
        marked.flags = Submission.BUFFERED_FILE;
        assertEquals(5, harness.run(ring, marked));
        for (int fd : new int[] {direct, pair.clientFd()}) {
            Submission wrong = Submissions.io(Opcode.WRITE, fd, data, 5, 0, 2);
            wrong.flags = Submission.BUFFERED_FILE;
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> ring.stage(wrong));
            assertTrue(refused.getMessage().contains("BUFFERED_FILE on fd " + fd), refused.getMessage());
        }
        assertEquals(0, ring.staged(), "nothing staged by a refused mark");
    }

    @Test
    void whatIoUringTriesAtOnceMayCompleteInTheEnterThatSubmitsIt() {
        Harness harness = harness(21);
        SimKernel kernel = kernel(harness, FIXED_LATENCY.withInlineCompletionRate(1));
        Pair pair = loopback(harness, kernel);
        SimRing ring = pair.ring();
        int fd = kernel.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment buffer = ring.allocate(16);
        MemorySegment data = Harness.text(ring, "hello");
        MemorySegment readBack = ring.allocate(5);
        Harness.stage(ring, Submissions.io(Opcode.RECV, pair.serverFd(), buffer, 16, 0, 1));
        Harness.stage(ring, Submissions.io(Opcode.SEND, pair.clientFd(), data, 5, 0, 2));
        Harness.stage(ring, Submissions.io(Opcode.WRITE, fd, data, 5, 0, 3));
        Harness.stage(ring, Submissions.nop(4));
        java.util.Map<Long, Integer> first = new java.util.TreeMap<>();
        ring.enter(false, 0, (userData, result, flags) -> first.put(userData, result));
        assertEquals(java.util.Map.of(2L, 5, 3L, 5), first, "the send and the write, in the enter that submitted them");
        Harness.stage(ring, Submissions.io(Opcode.READ, fd, readBack, 5, 0, 5));
        java.util.Map<Long, Integer> second = new java.util.TreeMap<>();
        ring.enter(false, 0, (userData, result, flags) -> second.put(userData, result));
        assertEquals(java.util.Map.of(5L, 5), second, "the read of cached bytes, at once; the receive waits for the"
                + " sent bytes to arrive, the no-op for its latency");
        assertEquals("hello", Harness.text(readBack, 5));
        assertEquals(5, harness.await(1).result());
        harness.await(4);
        ring.free(buffer);
        ring.free(readBack);

        Harness waiting = harness(21);
        SimKernel fixed = kernel(waiting, FIXED_LATENCY);
        Pair other = loopback(waiting, fixed);
        MemorySegment sent = Harness.text(other.ring(), "hello");
        Harness.stage(other.ring(), Submissions.io(Opcode.SEND, other.clientFd(), sent, 5, 0, 2));
        List<Long> delivered = new ArrayList<>();
        other.ring().enter(false, 0, (userData, result, flags) -> delivered.add(userData));
        assertEquals(List.of(), delivered, "at rate 0 the send waits its latency");
        assertEquals(5, waiting.await(2).result());
    }

    @Test
    void aFullRingRefusesToStageUntilACompletionIsDelivered() {
        Harness harness = harness(1);
        SimRing ring = kernel(harness, FIXED_LATENCY).openRing(1);
        assertEquals(1, ring.entries());
        assertTrue(ring.stage(Submissions.nop(1)));
        assertFalse(ring.stage(Submissions.nop(2)), "staged + in flight = entries");
        assertEquals(0, ring.enter(false, 0, (u, r, f) -> { }));
        assertEquals(1, ring.inFlight());
        assertFalse(ring.stage(Submissions.nop(2)), "still in flight");
        assertTrue(ring.stage(Submissions.cancel(1, 3)), "cancellations have their own bound");
        assertFalse(ring.stage(Submissions.cancel(1, 4)));
        harness.clock.advanceBy(LATENCY);
        List<Long> delivered = new ArrayList<>();
        ring.enter(false, 0, (userData, result, flags) -> delivered.add(userData));
        assertTrue(delivered.contains(1L));
        harness.drain();
        assertEquals(0, ring.inFlight());
        assertTrue(ring.stage(Submissions.nop(2)));
    }

    @Test
    void fromFourEntriesOnlyStorageAndTheSubmissionQueueAreBounded() {
        Harness harness = harness(1);
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        SimRing ring = kernel.openRing(4);
        Harness.Connection connection = harness.connect(kernel, ring, kernel, ring, 6001);
        MemorySegment buffer = ring.allocate(16);
        // Receives that wait for a peer: four fill the submission queue, and once submitted four more fit.
        for (long userData = 100; userData < 108; userData++) {
            if (userData == 104) {
                assertFalse(ring.stage(Submissions.io(Opcode.RECV, connection.serverFd(), buffer, 16, 0, userData)),
                        "four staged and not submitted fill the submission queue");
                ring.enter(false, 0, (u, r, f) -> { });
            }
            Harness.stage(ring, Submissions.io(Opcode.RECV, connection.serverFd(), buffer, 16, 0, userData));
        }
        ring.enter(false, 0, (u, r, f) -> { });
        assertEquals(8, ring.inFlight(), "eight receives in flight on a ring of four");
        // Storage is bounded by the entries, whatever the network holds.
        for (long userData = 0; userData < 4; userData++) {
            Harness.stage(ring, Submissions.nop(userData));
        }
        ring.enter(false, 0, (u, r, f) -> { });
        assertFalse(ring.stage(Submissions.nop(4)), "four storage requests in flight on a ring of four");
        harness.clock.advanceBy(LATENCY);
        ring.enter(false, 0, (u, r, f) -> { });
        assertTrue(ring.stage(Submissions.nop(4)), "a storage entry freed as the no-ops completed");
        ring.enter(false, 0, (u, r, f) -> { });
        // Cancellations keep their own bound of the entries: four at a time.
        for (long userData = 100; userData < 108; userData++) {
            Harness.stage(ring, Submissions.cancel(userData, userData | 0x1000));
            if (userData % 4 == 3) {
                ring.enter(false, 0, (u, r, f) -> { });
                harness.clock.advanceBy(LATENCY);
                ring.enter(false, 0, (u, r, f) -> { });
            }
        }
        harness.drain();
        assertEquals(0, ring.inFlight());
    }

    @Test
    void aClockReadIsAnAuditEventOnlyWhenItDiffersFromTheRingsLastOne() {
        Harness harness = harness(1);
        List<Long> eventsAfterEachRead = clockReads(harness, 0);
        assertEquals(List.of(1L, 1L, 2L, 3L), eventsAfterEachRead,
                "the first read, then not its repeat, then another ring's first read, then a read after the clock moved");
        // What a recorded read returned is in the chain: the same reads at another time give another digest.
        Harness later = harness(1);
        assertEquals(eventsAfterEachRead, clockReads(later, 5));
        assertNotEquals(harness.auditor.digest(), later.auditor.digest());
    }

    /**
     * Two rings' clock reads, {@code startNanos} after the harness's start: ring one twice, ring two, then ring one
     * after a nanosecond; the audit events each read added up to it.
     */
    private static List<Long> clockReads(Harness harness, long startNanos) {
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        SimRing one = kernel.openRing(1);
        SimRing two = kernel.openRing(1);
        harness.clock.advanceBy(startNanos);
        long events = harness.auditor.events();
        List<Long> counts = new ArrayList<>();
        long now = one.nowNanos();
        counts.add(harness.auditor.events() - events);
        assertEquals(now, one.nowNanos());
        counts.add(harness.auditor.events() - events);
        two.nowNanos();
        counts.add(harness.auditor.events() - events);
        harness.clock.advanceBy(1);
        assertEquals(now + 1, one.nowNanos());
        counts.add(harness.auditor.events() - events);
        return counts;
    }

    @Test
    void completionsArriveOnlyOnceTheClockReachesTheirTime() {
        Harness harness = harness(2);
        SimRing ring = kernel(harness, FIXED_LATENCY).openRing(4);
        Harness.stage(ring, Submissions.nop(7));
        assertEquals(Long.MAX_VALUE, ring.nextEventNanos(), "staged entries have no time until submitted");
        assertEquals(0, ring.enter(true, Long.MAX_VALUE, (u, r, f) -> { }), "enter never blocks");
        assertEquals(LATENCY, ring.nextEventNanos());
        harness.clock.advanceTo(LATENCY - 1);
        assertEquals(0, ring.enter(true, 0, (u, r, f) -> { }));
        harness.clock.advanceTo(LATENCY);
        List<Long> delivered = new ArrayList<>();
        assertEquals(1, ring.enter(false, 0, (userData, result, flags) -> {
            delivered.add(userData);
            assertEquals(0, result);
        }));
        assertEquals(List.of(7L), delivered);
        assertEquals(Long.MAX_VALUE, ring.nextEventNanos());
    }

    private static List<Long> orderOfSimultaneousCompletions(long seed) {
        Harness harness = harness(seed);
        SimRing ring = kernel(harness, FIXED_LATENCY).openRing(16);
        for (long userData = 0; userData < 16; userData++) {
            Harness.stage(ring, Submissions.nop(userData));
        }
        ring.enter(false, 0, (u, r, f) -> { });
        harness.clock.advanceBy(LATENCY);
        List<Long> order = new ArrayList<>();
        ring.enter(false, 0, (userData, result, flags) -> order.add(userData));
        return order;
    }

    @Test
    void simultaneousCompletionsArriveInASeededOrder() {
        assertEquals(orderOfSimultaneousCompletions(5), orderOfSimultaneousCompletions(5));
        assertNotEquals(orderOfSimultaneousCompletions(5), orderOfSimultaneousCompletions(6));
        assertEquals(16, Set.copyOf(orderOfSimultaneousCompletions(5)).size());
    }

    private record Pair(int clientFd, int serverFd, SimRing ring) {
    }

    /** A connection on one host, both ends on one ring. */
    private static Pair loopback(Harness harness, SimKernel kernel) {
        SimRing ring = kernel.openRing(8);
        Harness.Connection connection = harness.connect(kernel, ring, kernel, ring, 6000);
        return new Pair(connection.clientFd(), connection.serverFd(), ring);
    }

    @Test
    void aWaitingReceiveIsDueWhenDataArrivesAndAQueuedWriteAtItsTime() {
        Harness harness = harness(13);
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        Pair pair = loopback(harness, kernel);
        SimRing ring = pair.ring();
        MemorySegment buffer = ring.allocate(16);
        Harness.stage(ring, Submissions.io(Opcode.RECV, pair.serverFd(), buffer, 16, 0, 60));
        harness.pump();
        assertEquals(Long.MAX_VALUE, ring.nextEventNanos(), "nothing was sent: the receive waits for ever");
        MemorySegment data = Harness.bytes(ring, "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Harness.stage(ring, Submissions.io(Opcode.SEND, pair.clientFd(), data, 5, 0, 61));
        harness.pump();
        long sendDue = ring.nextEventNanos();
        assertEquals(harness.clock.nowNanos() + LATENCY, sendDue, "the send is due one latency after it was submitted");
        assertEquals(5, harness.await(61).result());
        long receiveDue = ring.nextEventNanos();
        assertTrue(receiveDue > sendDue && receiveDue < Long.MAX_VALUE,
                "the receive is due once the sent bytes arrive: " + receiveDue);
        assertEquals(5, harness.await(60).result());
        assertEquals(Long.MAX_VALUE, ring.nextEventNanos(), "nothing left in flight");
        assertEquals(0, ring.inFlight());
        ring.free(buffer);
        ring.free(data);
    }

    @Test
    void cancellingAPendingReceiveCompletesItEcanceled() {
        Harness harness = harness(3);
        SimKernel kernel = kernel(harness, FIXED_LATENCY.withCancelRaceRate(1.0));
        Pair pair = loopback(harness, kernel);
        MemorySegment buffer = pair.ring().allocate(16);
        Harness.stage(pair.ring(), Submissions.io(Opcode.RECV, pair.serverFd(), buffer, 16, 0, 50));
        harness.pump();
        Harness.stage(pair.ring(), Submissions.cancel(50, 51));
        assertThrows(IllegalStateException.class, () -> pair.ring().free(buffer), "the receive may still write it");
        assertEquals(-Errno.ECANCELED, harness.await(50).result(), "a waiting receive is never running: no race");
        assertEquals(0, harness.await(51).result());
        pair.ring().free(buffer);

        assertEquals(-Errno.ENOENT, harness.run(pair.ring(), Submissions.cancel(50, 52)), "already completed");
        assertEquals(-Errno.ENOENT, harness.run(pair.ring(), Submissions.cancel(12345, 53)), "never existed");
    }

    @Test
    void aCancelMayLoseTheRaceWithARunningRequest() {
        Harness harness = harness(4);
        SimKernel kernel = kernel(harness, FIXED_LATENCY.withCancelRaceRate(1.0));
        SimRing ring = kernel.openRing(4);
        int fd = kernel.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment data = Harness.text(ring, "written anyway");
        Harness.stage(ring, Submissions.io(Opcode.WRITE, fd, data, 14, 0, 60));
        harness.pump();
        Harness.stage(ring, Submissions.cancel(60, 61));
        int cancelResult = harness.await(61).result();
        assertTrue(cancelResult == 0 || cancelResult == -Errno.EALREADY, "was " + cancelResult);
        assertEquals(14, harness.await(60).result(), "the target completes with its real result");
        assertEquals("written anyway", new String(kernel.fileSystem().contents("/f")));

        Harness winningHarness = harness(5);
        SimKernel winning = kernel(winningHarness, FIXED_LATENCY);
        SimRing winningRing = winning.openRing(4);
        int winningFd = winning.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment other = Harness.text(winningRing, "never");
        Harness.stage(winningRing, Submissions.io(Opcode.WRITE, winningFd, other, 5, 0, 70));
        winningHarness.pump();
        Harness.stage(winningRing, Submissions.cancel(70, 71));
        assertEquals(-Errno.ECANCELED, winningHarness.await(70).result());
        assertEquals(0, winningHarness.await(71).result());
        assertEquals(0, winning.fileSystem().contents("/f").length, "a cancelled write has no effect");
    }

    @Test
    void cancelOfARequestWhoseResultIsDueFindsNothing() {
        Harness harness = harness(12);
        SimRing ring = kernel(harness, FIXED_LATENCY).openRing(2);
        Harness.stage(ring, Submissions.nop(80));
        ring.enter(false, 0, (u, r, f) -> { });
        harness.clock.advanceBy(LATENCY);
        Harness.stage(ring, Submissions.cancel(80, 81));
        assertEquals(0, harness.await(80).result(), "the real result arrives");
        assertEquals(-Errno.ENOENT, harness.await(81).result(), "a real kernel completed it before the cancel");
    }

    @Test
    void shortReadsReturnAtLeastOneByteAndZeroOnlyAtEndOfFile() {
        Harness harness = harness(6);
        SimKernel kernel = kernel(harness, FIXED_LATENCY.withShortTransfers(1.0, 1.0));
        SimRing ring = kernel.openRing(4);
        int fd = kernel.system().open("/f", O_RDWR | O_CREAT);
        byte[] content = new byte[1000];
        int written = 0;
        long userData = 1;
        while (written < content.length) {
            MemorySegment chunk = Harness.bytes(ring, new byte[content.length - written]);
            int result = harness.run(ring, Submissions.io(Opcode.WRITE, fd, chunk, content.length - written, written,
                    userData++));
            assertTrue(result >= 1 && result < content.length - written || content.length - written == 1,
                    "short write of " + result);
            written += result;
            ring.free(chunk);
        }
        MemorySegment buffer = ring.allocate(100);
        for (int i = 0; i < 50; i++) {
            int result = harness.run(ring, Submissions.io(Opcode.READ, fd, buffer, 100, i * 10, userData++));
            assertTrue(result >= 1 && result <= 99, "short read of " + result);
        }
        assertEquals(0, harness.run(ring, Submissions.io(Opcode.READ, fd, buffer, 100, 1000, userData++)));
    }

    @Test
    void spuriousErrorsAppearAtTheirRates() {
        Harness harness = harness(7);
        SimKernel interrupted = kernel(harness, FIXED_LATENCY.withSpuriousErrors(0, 1.0));
        SimRing ring = interrupted.openRing(4);
        int fd = interrupted.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment buffer = ring.allocate(8);
        assertEquals(-Errno.EINTR, harness.run(ring, Submissions.io(Opcode.WRITE, fd, buffer, 8, 0, 1)));
        assertEquals(-Errno.EINTR, harness.run(ring, Submissions.io(Opcode.READ, fd, buffer, 8, 0, 2)));

        Harness other = harness(8);
        SimKernel again = kernel(other, FIXED_LATENCY.withSpuriousErrors(1.0, 0));
        SimRing againRing = again.openRing(4);
        int againFd = again.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment againBuffer = againRing.allocate(8);
        assertEquals(-Errno.EAGAIN, other.run(againRing, Submissions.io(Opcode.WRITE, againFd, againBuffer, 8, 0, 1)));
        assertEquals(0, other.run(againRing, Submissions.fsync(againFd, 2)), "fsync is never spurious");
    }

    @Test
    void badFdsAndWrongKindsFailAsLinuxDoes() {
        Harness harness = harness(9);
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        SimRing ring = kernel.openRing(4);
        MemorySegment buffer = ring.allocate(8);
        assertEquals(-Errno.EBADF, harness.run(ring, Submissions.io(Opcode.READ, 42, buffer, 8, 0, 1)));
        int file = kernel.system().open("/f", O_RDWR | O_CREAT);
        assertEquals(-Errno.ENOTSOCK, harness.run(ring, Submissions.io(Opcode.RECV, file, buffer, 8, 0, 2)));
        assertEquals(-Errno.ENOTSOCK, harness.run(ring, Submissions.accept(file, 3)));
        assertEquals(0, harness.run(ring, Submissions.nop(5)));
    }

    @Test
    void theKernelTakesOnlyNativeBuffersThatFitTheirLengthAsIoUringDoes() {
        Harness harness = harness(12);
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        SimRing ring = kernel.openRing(4);
        int file = kernel.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment native8 = ring.allocate(8);
        assertTrue(native8.isNative() && native8.address() != 0, "allocate hands out native memory: " + native8);
        assertEquals(8, harness.run(ring, Submissions.io(Opcode.WRITE, file, native8, 8, 0, 1)));
        MemorySegment heap = MemorySegment.ofArray(new byte[8]);
        for (Opcode opcode : List.of(Opcode.READ, Opcode.WRITE, Opcode.RECV, Opcode.SEND)) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> ring.stage(Submissions.io(opcode, file, heap, 8, 0, 2)), opcode.name());
            assertTrue(refused.getMessage().contains("native buffer"), refused.getMessage());
        }
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> ring.stage(Submissions.io(Opcode.WRITE, file, native8, 9, 0, 3)));
        assertTrue(tooLong.getMessage().contains("length 9"), tooLong.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ring.stage(Submissions.io(Opcode.READ, file, native8, -1, 0, 4)));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> ring.stage(Submissions.io(Opcode.READ, file, native8, 8, -1, 5)));
        assertTrue(negative.getMessage().contains("offset"), negative.getMessage());
        // The path and statx rules of Submission.validate(), which both rings apply, with its messages.
        MemorySegment unterminated = ring.allocate(4);
        unterminated.fill((byte) 'a');
        Submission openat = Submissions.io(Opcode.OPENAT, Submission.AT_FDCWD, unterminated, 4, 0, 7);
        IllegalArgumentException path = assertThrows(IllegalArgumentException.class, () -> ring.stage(openat));
        assertTrue(path.getMessage().contains("NUL byte after its 4 bytes"), path.getMessage());
        IllegalArgumentException statx = assertThrows(IllegalArgumentException.class,
                () -> ring.stage(Submissions.io(Opcode.STATX, file, native8, 8, 0, 8)));
        assertTrue(statx.getMessage().contains("was 8"), statx.getMessage());
        ring.free(unterminated);
        // A receive into a buffer the ring selects must fit one, refused at stage as runtime-uring refuses it.
        int selectable = ring.selectedBufferBytes();
        Submission selecting = Submissions.io(Opcode.RECV, file, null, selectable + 1, 0, 9);
        selecting.flags = Submission.SELECT_BUFFER;
        IllegalArgumentException notFitting = assertThrows(IllegalArgumentException.class,
                () -> ring.stage(selecting));
        assertTrue(notFitting.getMessage().contains("a receive of " + (selectable + 1) + " bytes does not fit the"
                + " ring's " + selectable + "-byte selected buffers"), notFitting.getMessage());
        assertEquals(0, ring.staged(), "nothing refused was staged");
        // Memory of one ring works on another ring of the kernel and is freed by it, as the C heap is shared.
        SimRing other = kernel.openRing(4);
        assertEquals(8, harness.run(other, Submissions.io(Opcode.READ, file, native8, 8, 0, 6)));
        other.free(native8);
        assertEquals(List.of(), kernel.heldResources().stream().filter(r -> r.contains("buffer")).toList());
    }

    @Test
    void heldResourcesNameEachFdRingAndBufferWithWhereItCameFrom() {
        Harness harness = harness(13);
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        SimRing ring = kernel.openRing(4);
        int file = kernel.system().open("/f", O_RDWR | O_CREAT);
        MemorySegment buffer = ring.allocate(16);
        ring.allocate(8);
        assertEquals(16, harness.run(ring, Submissions.io(Opcode.WRITE, file, buffer, 16, 0, 1)));
        List<String> held = kernel.heldResources();
        assertEquals(4, held.size(), held.toString());
        assertTrue(held.get(0).startsWith("fd " + file + " (file /f), opened by open at "), held.get(0));
        assertTrue(held.get(0).contains("SimRingTest.java"), "names the line that opened it: " + held.get(0));
        assertTrue(held.get(1).startsWith("ring " + ring.id()), held.get(1));
        assertTrue(held.get(2).startsWith("16-byte ring buffer #1 of ring " + ring.id()), held.get(2));
        assertTrue(held.get(2).endsWith("last staged by WRITE on fd " + file + " (file /f)"), held.get(2));
        assertTrue(held.get(3).startsWith("8-byte ring buffer #2 of ring " + ring.id()), held.get(3));
        assertTrue(held.get(3).endsWith("never staged"), held.get(3));
        kernel.freeLeakedMemory();
    }

    @Test
    void memoryMustComeFromTheRingAndCloseNeedsAnIdleRing() {
        Harness harness = harness(10);
        SimKernel kernel = kernel(harness, FIXED_LATENCY);
        SimRing ring = kernel.openRing(2);
        MemorySegment segment = ring.allocate(4);
        ring.free(segment);
        assertThrows(IllegalArgumentException.class, () -> ring.free(segment), "double free");
        assertThrows(IllegalArgumentException.class, () -> ring.free(MemorySegment.ofArray(new byte[4])));
        assertThrows(IllegalArgumentException.class, () -> ring.allocate(-1));
        Harness.stage(ring, Submissions.nop(1));
        ring.enter(false, 0, (u, r, f) -> { });
        assertThrows(IllegalStateException.class, ring::close);
        harness.drain();
        ring.close();
        assertTrue(ring.isClosed());
        assertEquals(List.of(), kernel.rings());
        assertThrows(IllegalStateException.class, () -> ring.stage(Submissions.nop(2)));
    }

    @Test
    void wakeOnlyFlags() {
        Harness harness = harness(11);
        SimRing ring = kernel(harness, FIXED_LATENCY).openRing(2);
        assertFalse(ring.wakeRequested());
        ring.wake();
        assertTrue(ring.wakeRequested());
        assertEquals(0, ring.enter(true, Long.MAX_VALUE, (u, r, f) -> { }));
        assertFalse(ring.wakeRequested());
        assertEquals(harness.clock.nowNanos(), ring.nowNanos());
    }
}
