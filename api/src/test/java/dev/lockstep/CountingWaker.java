package dev.lockstep;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A waker that counts what is done with it: how often it was retained, woken and released. Shared through this
 * module's test jar by the primitives' tests ({@code dev.lockstep.sync.PrimitivesTest}) and the conformance
 * suite's probes ({@code TimeTaskProbeTest}), which check the waker protocol: retain once, wake once, release what
 * is dropped. Thread-safe: a runtime may call it from any thread. Test code only.
 */
public final class CountingWaker implements Waker {
    private final AtomicInteger retains = new AtomicInteger();
    private final AtomicInteger wakes = new AtomicInteger();
    private final AtomicInteger releases = new AtomicInteger();

    @Override
    public void wake() {
        wakes.incrementAndGet();
    }

    @Override
    public Waker retain() {
        retains.incrementAndGet();
        return this;
    }

    @Override
    public void release() {
        releases.incrementAndGet();
    }

    /**
     * @return how many times {@link #retain()} was called
     */
    public int retains() {
        return retains.get();
    }

    /**
     * @return how many times {@link #wake()} was called
     */
    public int wakes() {
        return wakes.get();
    }

    /**
     * @return how many times {@link #release()} was called
     */
    public int releases() {
        return releases.get();
    }

    /** The three counts, as {@code retain=R wake=W release=L}: what the conformance probes record and compare. */
    @Override
    public String toString() {
        return "retain=" + retains + " wake=" + wakes + " release=" + releases;
    }
}
