package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Receives whose buffer the kernel selects (a provided buffer ring): a receive that waits holds no buffer; the one
 * the kernel filled is named in the completion and comes back when given back; with every buffer out a receive
 * that finds data completes with {@code ENOBUFS} and takes no byte from the socket; a cancelled receive holds none.
 * On a ring of two buffers, so that three receives run them out. Skipped where the kernel has no provided buffer
 * rings (before Linux 5.19), where receives bring their own buffers.
 */
class UringSelectedBuffersTest extends RingFixture {
    @Override
    UringRing openRing() {
        return new UringKernel(2).openRing(8);
    }

    @Test
    void theKernelSelectsABufferWhenDataArrivesAndRunsOutWithEnobufsTakingNoByte() {
        assumeSelectedBuffers();
        List<Pair> pairs = List.of(connectedPair(), connectedPair(), connectedPair());
        for (int i = 0; i < 3; i++) {
            stage(selectingReceive(pairs.get(i).accepted(), 16, i + 1));
        }
        ring.enter(false, 0, completions);
        for (long receive = 1; receive <= 3; receive++) {
            assertFalse(completions.all().containsKey(receive), "nothing was sent, so receive " + receive + " waits");
        }
        assertEquals(0, ring.receiveSelection().lent(), "waiting receives hold no buffer");

        for (int i = 0; i < 3; i++) {
            stage(send(pairs.get(i).client(), "message " + i, 11 + i));
        }
        completions.awaitAll(ring, 1, 2, 3, 11, 12, 13);

        List<Integer> exhausted = new ArrayList<>();
        List<Integer> flagsToGive = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Completions.Completion receive = completions.all().get(i + 1L);
            if (receive.result() == -Errno.ENOBUFS) {
                assertEquals(0, receive.flags() & Ring.COMPLETION_BUFFER, "an ENOBUFS completion names no buffer");
                exhausted.add(i);
                continue;
            }
            assertEquals(9, receive.result(), "receive " + i);
            assertTrue((receive.flags() & Ring.COMPLETION_BUFFER) != 0, "receive " + i + " names its buffer");
            MemorySegment selected = ring.selectedBuffer(receive.flags());
            assertEquals("message " + i, text(selected, 9));
            flagsToGive.add(receive.flags());
        }
        assertEquals(1, exhausted.size(), "two buffers for three receives: " + completions.all());
        assertEquals(2, ring.receiveSelection().lent());
        flagsToGive.forEach(ring::returnSelected);
        assertEquals(0, ring.receiveSelection().lent(), "both buffers given back");

        // The receive that found none took nothing from its socket: asked again, it gets every byte.
        int again = exhausted.getFirst();
        stage(selectingReceive(pairs.get(again).accepted(), 16, 21));
        completions.awaitAll(ring, 21);
        Completions.Completion retried = completions.all().get(21L);
        assertEquals(9, retried.result());
        assertEquals("message " + again, text(ring.selectedBuffer(retried.flags()), 9));
        ring.returnSelected(retried.flags());
        assertEquals(0, ring.receiveSelection().lent());
    }

    @Test
    void aCancelledSelectingReceiveHoldsNoBufferAndBothBuffersServeLaterReceives() {
        assumeSelectedBuffers();
        Pair first = connectedPair();
        Pair second = connectedPair();
        stage(selectingReceive(first.accepted(), 16, 1));
        ring.enter(false, 0, completions);
        stage(Submissions.cancel(1, 2));
        completions.awaitAll(ring, 1, 2);
        assertEquals(-Errno.ECANCELED, completions.all().get(1L).result());
        assertEquals(0, completions.all().get(1L).flags() & Ring.COMPLETION_BUFFER, "no buffer was taken");

        stage(send(first.client(), "one", 3));
        stage(send(second.client(), "two", 4));
        completions.awaitAll(ring, 3, 4);
        stage(selectingReceive(first.accepted(), 16, 5));
        stage(selectingReceive(second.accepted(), 16, 6));
        completions.awaitAll(ring, 5, 6);
        for (long userData : new long[] {5, 6}) {
            Completions.Completion receive = completions.all().get(userData);
            assertEquals(3, receive.result(), "both buffers are there after the cancellation: " + receive);
            ring.selectedBuffer(receive.flags());
            ring.returnSelected(receive.flags());
        }
        assertEquals(0, ring.receiveSelection().lent());
    }

    @Test
    void aRingWithoutSelectedBuffersAndAReceiveLongerThanOneAreRefusedAtStage() {
        Pair pair = connectedPair();
        UringRing without = new UringKernel(0).openRing(8);
        try {
            assertEquals(0, without.selectedBufferBytes());
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> without.stage(selectingReceive(pair.accepted(), 16, 3)));
            assertTrue(refused.getMessage().contains("selects no receive buffers"), refused.getMessage());
            assertFalse(without.receiveSelection().refused(), "none asked for is no fallback");
        } finally {
            without.close();
        }

        assumeSelectedBuffers();
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> ring.stage(selectingReceive(pair.accepted(), UringRing.RECEIVE_BUFFER_BYTES + 1, 1)));
        assertTrue(tooLong.getMessage().contains("receive of " + (UringRing.RECEIVE_BUFFER_BYTES + 1) + " bytes"),
                tooLong.getMessage());
        Submission withBuffer = selectingReceive(pair.accepted(), 16, 2);
        withBuffer.buffer = allocate(16);
        assertThrows(IllegalArgumentException.class, () -> ring.stage(withBuffer));
        assertThrows(IllegalArgumentException.class, () -> ring.selectedBuffer(0), "flags naming no buffer");
    }

    @Test
    void aBufferIsLentOnceAndGivenBackOnce() {
        assumeSelectedBuffers();
        Pair pair = connectedPair();
        stage(send(pair.client(), "once", 1));
        stage(selectingReceive(pair.accepted(), 16, 2));
        completions.awaitAll(ring, 1, 2);
        int flags = completions.all().get(2L).flags();
        assertTrue((flags & Ring.COMPLETION_BUFFER) != 0, () -> "completion " + completions.all().get(2L));
        String id = "buffer " + (flags >>> 16);

        IllegalArgumentException neverTaken = assertThrows(IllegalArgumentException.class,
                () -> ring.returnSelected(flags));
        assertTrue(neverTaken.getMessage().startsWith(id + " (completion flags 0x"), neverTaken.getMessage());
        ring.selectedBuffer(flags);
        IllegalArgumentException takenTwice = assertThrows(IllegalArgumentException.class,
                () -> ring.selectedBuffer(flags));
        assertTrue(takenTwice.getMessage().contains(id + " (completion flags 0x"
                + Integer.toHexString(flags) + ") is lent already"), takenTwice.getMessage());
        assertEquals(1, ring.receiveSelection().lent());
        ring.returnSelected(flags);
        IllegalArgumentException givenTwice = assertThrows(IllegalArgumentException.class,
                () -> ring.returnSelected(flags));
        assertTrue(givenTwice.getMessage().contains("is not lent"), givenTwice.getMessage());
        assertEquals(0, ring.receiveSelection().lent(), "given back once, not twice");
    }

    /**
     * A drained close unmaps the buffers; an abandoned one (receives may still be in flight) leaves them mapped for
     * the kernel's teardown to write, which leaks this test's two buffers on purpose.
     */
    @Test
    void aDrainedCloseUnmapsTheBuffersAndAnAbandonedCloseLeavesThemMapped() throws IOException {
        assumeSelectedBuffers();
        for (boolean drained : new boolean[] {true, false}) {
            UringRing other = new UringKernel(2).openRing(8);
            long address;
            try {
                Pair pair = connectedPairOn(other);
                Completions received = new Completions();
                stageOn(other, send(pair.client(), "x", 1));
                stageOn(other, selectingReceive(pair.accepted(), 16, 2));
                received.awaitAll(other, 1, 2);
                int flags = received.all().get(2L).flags();
                address = other.selectedBuffer(flags).address();
                other.returnSelected(flags);
                assertTrue(mapped(address), "the buffer is mapped while the ring is open");
            } finally {
                if (drained) {
                    other.close();
                } else {
                    other.closeAbandoned();
                }
            }
            assertEquals(!drained, mapped(address), drained ? "a drained close unmaps" : "an abandoned close does not");
        }
    }

    @Test
    void aRegistrationTheKernelRefusesForAnotherReasonThanAgeIsAKernelExceptionNamingTheErrno() {
        assumeSelectedBuffers();
        try (Arena arena = Arena.ofConfined()) {
            KernelException refused = assertThrows(KernelException.class, () -> ProvidedBuffers.register(arena,
                    Libc.newCallState(arena), ring.ringFd(), 2, 16, "the test's ring"));
            assertEquals(Errno.EEXIST, refused.errno(), "group 0 is registered already: " + refused.getMessage());
            assertEquals("io_uring_register", refused.call());
        }
    }

    private void assumeSelectedBuffers() {
        assumeTrue(ring.selectedBufferBytes() > 0, "the kernel has no provided buffer rings (Linux 5.19+)");
        assertEquals(UringRing.RECEIVE_BUFFER_BYTES, ring.selectedBufferBytes());
        assertFalse(ring.receiveSelection().refused());
    }

    /** Whether a mapping of this process covers {@code address}, from {@code /proc/self/maps}. */
    private static boolean mapped(long address) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] range = line.substring(0, line.indexOf(' ')).split("-");
            long start = Long.parseUnsignedLong(range[0], 16);
            long end = Long.parseUnsignedLong(range[1], 16);
            if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0) {
                return true;
            }
        }
        return false;
    }

    private static Submission selectingReceive(int fd, int length, long userData) {
        Submission submission = new Submission();
        submission.opcode = Opcode.RECV;
        submission.fd = fd;
        submission.flags = Submission.SELECT_BUFFER;
        submission.length = length;
        submission.userData = userData;
        return submission;
    }

    private Submission send(int fd, String text, long userData) {
        return Submissions.whole(Opcode.SEND, fd, bytes(text), userData);
    }
}
