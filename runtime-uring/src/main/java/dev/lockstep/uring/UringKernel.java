package dev.lockstep.uring;

import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.SystemCalls;

/**
 * The Linux {@link Kernel}: io_uring rings ({@link UringRing}) and libc system calls
 * ({@link LinuxSystemCalls}), both through FFM, with no native library of its own.
 *
 * <h2>Threads</h2>
 * Thread-safe. {@link #openRing} binds the ring to the calling thread, which must be the platform thread that
 * will drive it.
 */
public final class UringKernel implements Kernel {
    /** The largest submission queue io_uring accepts ({@code IORING_MAX_ENTRIES}). */
    public static final int MAX_ENTRIES = 32768;

    /**
     * A kernel for this process.
     *
     * @throws UnsupportedOperationException naming the platform unless it is Linux on x86-64 or aarch64
     */
    public UringKernel() {
        Libc.requireSupportedPlatform();
    }

    /**
     * {@inheritDoc}
     *
     * @return a ring owned by the calling thread; its completion queue holds {@code 2 * entries}
     * @throws IllegalArgumentException naming the value unless {@code entries} is a power of two in
     *     {@code [1, maxEntries()]}
     * @throws IllegalStateException on a virtual thread
     * @throws UringUnavailableException naming the cause and the fix if the kernel refuses io_uring itself
     *     ({@code EPERM}, {@code ENOSYS}, {@code ENOMEM} from {@code io_uring_setup})
     * @throws KernelException if the kernel refuses the ring otherwise, e.g. {@code EMFILE}
     */
    @Override
    public UringRing openRing(int entries) {
        if (entries < 1 || entries > MAX_ENTRIES || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException("ring entries must be a power of two between 1 and " + MAX_ENTRIES
                    + ", was " + entries);
        }
        try {
            return UringRing.open(entries);
        } catch (KernelException refused) {
            UringUnavailableException unavailable = refused.call().equals("io_uring_setup")
                    ? UringAvailability.explain(refused.errno(), "io_uring_setup(" + refused.subject() + ")")
                    : null;
            if (unavailable != null) {
                unavailable.initCause(refused);
                throw unavailable;
            }
            throw refused;
        }
    }

    @Override
    public int maxEntries() {
        return MAX_ENTRIES;
    }

    /**
     * {@inheritDoc}
     *
     * @return the one {@link LinuxSystemCalls}
     */
    @Override
    public SystemCalls system() {
        return LinuxSystemCalls.instance();
    }

    @Override
    public String toString() {
        return "UringKernel";
    }
}
