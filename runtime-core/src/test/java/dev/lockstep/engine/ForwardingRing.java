package dev.lockstep.engine;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;

/**
 * A test double's base: a ring that hands every call to another one, for doubles that change one or two of them
 * (inject a failure into {@code enter}, hold a submission back). The optional fast path ({@code
 * readWithoutWaiting}) keeps {@link Ring}'s default, so a wrapped ring is always driven through its {@code stage}
 * and {@code enter}, where the double can see it. Shared with the runtimes through the test jar.
 */
public class ForwardingRing implements Ring {
    /** The ring every call goes to. */
    protected final Ring ring;

    /**
     * @param ring the ring every call goes to
     */
    public ForwardingRing(Ring ring) {
        this.ring = ring;
    }

    @Override
    public int entries() {
        return ring.entries();
    }

    @Override
    public boolean stage(Submission submission) {
        return ring.stage(submission);
    }

    @Override
    public int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
        return ring.enter(wait, timeoutNanos, sink);
    }

    @Override
    public void wake() {
        ring.wake();
    }

    @Override
    public long nowNanos() {
        return ring.nowNanos();
    }

    @Override
    public long wallNanos(long nowNanos) {
        return ring.wallNanos(nowNanos);
    }

    @Override
    public MemorySegment allocate(long bytes) {
        return ring.allocate(bytes);
    }

    @Override
    public void free(MemorySegment segment) {
        ring.free(segment);
    }

    @Override
    public void close() {
        ring.close();
    }
}
