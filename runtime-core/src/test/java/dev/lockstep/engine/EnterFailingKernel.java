package dev.lockstep.engine;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Ring;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kernel whose rings fail {@code enter} on demand: while {@link #failNextEnters} is positive, the next
 * {@code enter} of any of its rings throws {@link KernelException} ({@code EIO}, naming {@code io_uring_enter}
 * and "injected failure N") instead of reaching the wrapped kernel's ring. How tests inject a ring failure
 * between the engine and a real or scripted ring; shared with the runtimes through the test jar.
 */
public final class EnterFailingKernel extends ForwardingKernel {
    /** Enters still to fail; set by the test. */
    public final AtomicInteger failNextEnters = new AtomicInteger();
    /** Failures thrown so far. */
    public final AtomicInteger thrown = new AtomicInteger();
    /** Of {@link #thrown}, those thrown into a fiber's own turn of the ring (an inline turn). */
    public final AtomicInteger thrownInFibers = new AtomicInteger();

    /**
     * @param kernel the kernel whose rings and calls are used otherwise
     */
    public EnterFailingKernel(Kernel kernel) {
        super(kernel);
    }

    @Override
    public Ring openRing(int entries) {
        return new ForwardingRing(kernel.openRing(entries)) {
            @Override
            public int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
                if (failNextEnters.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    if (Thread.currentThread().isVirtual()) {
                        thrownInFibers.incrementAndGet();
                    }
                    throw new KernelException(Errno.EIO, "io_uring_enter", "injected failure "
                            + thrown.incrementAndGet());
                }
                return ring.enter(wait, timeoutNanos, sink);
            }
        };
    }
}
