package dev.lockstep.uring;

import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A ring's side of the receive buffers the kernel selects: the {@link ProvidedBuffers} it registered, or none
 * (none asked for, or refused by a kernel older than Linux 5.19), their size, which a selecting receive must fit
 * ({@link Submission#validateFor(int)}), and which buffer a completion's flags name.
 *
 * <p>Threads: the owning ring's thread only, which the ring checks; the counts for tests also once its thread ended.
 */
final class ReceiveSelection {
    /** Null where the kernel refused the buffers or none were asked for. */
    private final ProvidedBuffers provided;
    /** Whether the kernel refused the provided buffer ring asked for. */
    private final boolean refused;
    private final String subject;

    private ReceiveSelection(ProvidedBuffers provided, boolean refused, String subject) {
        this.provided = provided;
        this.refused = refused;
        this.subject = subject;
    }

    /** No selected buffers: every receive brings its own. */
    static ReceiveSelection none(String subject) {
        return new ReceiveSelection(null, false, subject);
    }

    /**
     * Registers {@code count} buffers of {@code bufferBytes} with the ring; a kernel that refuses leaves none.
     *
     * @throws dev.lockstep.kernel.KernelException if the registration fails otherwise
     */
    static ReceiveSelection register(Arena arena, MemorySegment callState, int ringFd, int count, int bufferBytes,
                                     String subject) {
        ProvidedBuffers provided = ProvidedBuffers.register(arena, callState, ringFd, count, bufferBytes, subject);
        return new ReceiveSelection(provided, provided == null, subject);
    }

    /** Bytes of each selected buffer, 0 without them. */
    int bufferBytes() {
        return provided == null ? 0 : provided.bufferBytes();
    }

    /**
     * The buffer a completion's flags name.
     *
     * @throws IllegalArgumentException if they name none of this ring's
     */
    ProvidedBuffers named(int completionFlags) {
        if (provided == null || (completionFlags & Ring.COMPLETION_BUFFER) == 0) {
            throw new IllegalArgumentException("completion flags 0x" + Integer.toHexString(completionFlags)
                    + " name no selected buffer of the " + subject + " ring");
        }
        return provided;
    }

    /** Counts a receive that found every buffer out; nothing without buffers. */
    void exhausted() {
        if (provided != null) {
            provided.exhausted();
        }
    }

    /** Buffers lent to receives and not given back, 0 without buffers. */
    int lent() {
        return provided == null ? 0 : provided.lent();
    }

    /** Buffers taken by receives so far, 0 without buffers. */
    long takes() {
        return provided == null ? 0 : provided.takes();
    }

    /** Receives that found every buffer out so far, 0 without buffers. */
    long exhaustions() {
        return provided == null ? 0 : provided.exhaustions();
    }

    /**
     * Unmaps the buffers, if any: only once no receive can select one (see {@link ProvidedBuffers#unmap}).
     */
    void unmap() {
        if (provided != null) {
            provided.unmap();
        }
    }

    /** Whether the kernel refused the buffers asked for (older than Linux 5.19), so receives bring their own. */
    boolean refused() {
        return refused;
    }
}
