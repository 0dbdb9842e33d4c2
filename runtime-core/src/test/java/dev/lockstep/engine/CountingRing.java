package dev.lockstep.engine;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A ring for model-checking tests that drive a worker by hand: it accepts nothing into the kernel (no test here
 * submits ring work), never waits, and counts wakes.
 */
public final class CountingRing implements Ring {
    public final AtomicInteger wakes = new AtomicInteger();

    @Override
    public int entries() {
        return 4;
    }

    @Override
    public boolean stage(Submission submission) {
        throw new UnsupportedOperationException("no ring work in this test: " + submission);
    }

    @Override
    public int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
        return 0;
    }

    @Override
    public void wake() {
        wakes.incrementAndGet();
    }

    @Override
    public long nowNanos() {
        return 0;
    }

    @Override
    public MemorySegment allocate(long bytes) {
        return MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
    }

    @Override
    public void free(MemorySegment segment) {
    }

    @Override
    public void close() {
    }
}
