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
        this(UringRing.RECEIVE_BUFFERS);
    }

    /** Receive buffers each ring asks the kernel to select from ({@link UringRing#open(int, int)}). */
    private final int receiveBuffers;

    /**
     * A kernel whose rings each have {@code receiveBuffers} receive buffers the kernel selects (0: none); for tests
     * that run the buffers out.
     *
     * @param receiveBuffers a power of two up to 32768, or 0
     */
    UringKernel(int receiveBuffers) {
        this(receiveBuffers, ring -> { });
    }

    /** Told of every ring this kernel opens, on the ring's thread; for tests that read a runner's rings. */
    private final java.util.function.Consumer<UringRing> opened;

    /**
     * {@link #UringKernel(int)}, telling {@code opened} of each ring it opens, on the ring's own thread.
     *
     * @param receiveBuffers a power of two up to 32768, or 0
     * @param opened told of each ring
     */
    UringKernel(int receiveBuffers, java.util.function.Consumer<UringRing> opened) {
        Libc.requireSupportedPlatform();
        this.opened = java.util.Objects.requireNonNull(opened, "opened");
        if (receiveBuffers < 0 || receiveBuffers > MAX_ENTRIES
                || (receiveBuffers != 0 && Integer.bitCount(receiveBuffers) != 1)) {
            throw new IllegalArgumentException("receive buffers must be 0 or a power of two up to 32768, was "
                    + receiveBuffers);
        }
        this.receiveBuffers = receiveBuffers;
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
            UringRing ring = UringRing.open(entries, receiveBuffers);
            try {
                opened.accept(ring);
            } catch (RuntimeException | Error failure) {
                ring.close(); // nothing was staged on it yet
                throw failure;
            }
            return ring;
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
