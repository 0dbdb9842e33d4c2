package dev.lockstep.engine;

import dev.lockstep.kernel.CallSite;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.SystemCalls;
import java.util.random.RandomGenerator;

/**
 * A test double's base: a kernel that hands every call to another one, for doubles that change one of them
 * (refuse a ring, wrap each ring in a {@link ForwardingRing}). Shared with the runtimes through the test jar.
 */
public class ForwardingKernel implements Kernel {
    /** The kernel every call goes to. */
    protected final Kernel kernel;

    /**
     * @param kernel the kernel every call goes to
     */
    public ForwardingKernel(Kernel kernel) {
        this.kernel = kernel;
    }

    @Override
    public Ring openRing(int entries) {
        return kernel.openRing(entries);
    }

    @Override
    public int maxEntries() {
        return kernel.maxEntries();
    }

    @Override
    public SystemCalls system() {
        return kernel.system();
    }

    @Override
    public CallSite callerSite() {
        return kernel.callerSite();
    }

    @Override
    public RandomGenerator random() {
        return kernel.random();
    }
}
