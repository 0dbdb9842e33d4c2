package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fixture of the tests that drive one {@link UringRing} by hand from the test's thread ({@link UringRingTest},
 * {@link UringSelectedBuffersTest}): a ring opened before each test by {@link #openRing()}, the completions it
 * delivered, and what its submissions point to — native memory and fds — given back after each test, then the
 * ring closed. Helpers stage submissions ({@link Submissions} builds them) and connect loopback pairs through
 * the ring.
 */
abstract class RingFixture {
    static final SystemCalls SYSTEM = new UringKernel().system();
    static final InetSocketAddress LOOPBACK_ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    UringRing ring;
    final Completions completions = new Completions();
    private final List<Integer> fdsToClose = new ArrayList<>();
    private final List<MemorySegment> memoryToFree = new ArrayList<>();
    /** User data of the accepts and connects of {@link #connectedPair}: above what the tests use themselves. */
    private long nextUserData = 1_000_000;

    /**
     * The ring each test drives.
     *
     * @return a newly opened ring
     */
    abstract UringRing openRing();

    @BeforeEach
    final void openTheRing() {
        ring = openRing();
    }

    @AfterEach
    final void release() {
        fdsToClose.forEach(SYSTEM::close);
        memoryToFree.forEach(ring::free);
        ring.close();
    }

    /** Native memory of the ring's allocator, freed after the test. */
    final MemorySegment allocate(long bytes) {
        MemorySegment memory = ring.allocate(bytes);
        memoryToFree.add(memory);
        return memory;
    }

    /** {@code text} in UTF-8, in native memory freed after the test. */
    final MemorySegment bytes(String text) {
        byte[] encoded = text.getBytes(StandardCharsets.UTF_8);
        MemorySegment memory = allocate(encoded.length);
        MemorySegment.copy(encoded, 0, memory, ValueLayout.JAVA_BYTE, 0, encoded.length);
        return memory;
    }

    static String text(MemorySegment memory, int length) {
        return new String(memory.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /** {@code fd}, closed after the test. */
    final int keep(int fd) {
        fdsToClose.add(fd);
        return fd;
    }

    /** Stages on the test's ring, which must have room. */
    final void stage(Submission submission) {
        stageOn(ring, submission);
    }

    static void stageOn(UringRing on, Submission submission) {
        assertTrue(on.stage(submission), () -> "ring refused " + submission);
    }

    /** A connected loopback pair: the connecting socket and the one the listener accepted. */
    record Pair(int client, int accepted, InetSocketAddress listening) {
    }

    /** A pair connected through the test's ring; its fds are closed after the test. */
    final Pair connectedPair() {
        return connectedPairOn(ring);
    }

    /** A pair connected through {@code on}'s accept and connect; its fds are closed after the test. */
    final Pair connectedPairOn(UringRing on) {
        Completions seen = on == ring ? completions : new Completions();
        int listener = keep(SYSTEM.socket(LOOPBACK_ANY_PORT));
        SYSTEM.bindAndListen(listener, LOOPBACK_ANY_PORT, 16);
        InetSocketAddress listening = SYSTEM.localAddress(listener);
        int client = keep(SYSTEM.socket(listening));
        MemorySegment sockaddr = SYSTEM.sockaddr(on, listening);
        long accept = nextUserData++;
        long connect = nextUserData++;
        try {
            stageOn(on, Submissions.accept(listener, accept));
            stageOn(on, Submissions.connect(client, sockaddr, connect));
            seen.awaitAll(on, accept, connect);
        } finally {
            // Freed whether or not the connect completed: the kernel copies the address when it takes the
            // submission, and the memory goes back to the ring's allocator, not to the system.
            on.free(sockaddr);
        }
        assertEquals(0, seen.all().get(connect).result(), "connect");
        int accepted = seen.all().get(accept).result();
        assertTrue(accepted >= 0, () -> "accept failed: " + accepted);
        return new Pair(client, keep(accepted), listening);
    }
}
