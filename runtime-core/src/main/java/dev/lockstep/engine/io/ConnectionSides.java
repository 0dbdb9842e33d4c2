package dev.lockstep.engine.io;

import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.SystemCalls;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;

/**
 * What the two sides of one connection share: the fd, and which sides are closed. The fd is released once,
 * by whichever close finishes the second side.
 *
 * <p>Thread-safe and lock-free. The closed sides are one atomic set of bits, changed by CAS: each side is
 * closed by exactly one call, and exactly one call moves the set to "both", so the owner's reference on the
 * fd is dropped exactly once even when the sink and the stream close at the same moment on two threads.
 */
public final class ConnectionSides {
    /** The sending side. */
    static final int SINK = 1;
    /** The receiving side. */
    public static final int STREAM = 2;
    private static final int BOTH = SINK | STREAM;

    final SharedFd fd;
    final InetSocketAddress peer;
    final SystemCalls system;
    /** The closed sides; changed only through {@link #CLOSED} (a field: one object less per connection). */
    private volatile int closed;
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(ConnectionSides.class, "closed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public ConnectionSides(SharedFd fd, InetSocketAddress peer, SystemCalls system) {
        this.fd = fd;
        this.peer = peer;
        this.system = system;
    }

    /**
     * Whether a side is closed.
     *
     * @param side {@link #SINK} or {@link #STREAM}
     * @return true once closed
     */
    boolean isClosed(int side) {
        return (closed & side) != 0;
    }

    /**
     * Closes one side; the call that closes the second side releases the fd.
     *
     * @param side {@link #SINK} or {@link #STREAM}
     * @return true if this call closed the side, false if it was closed already
     */
    public boolean closeSide(int side) {
        while (true) {
            int was = closed;
            if ((was & side) != 0) {
                return false;
            }
            int now = was | side;
            if (CLOSED.compareAndSet(this, was, now)) {
                if (now == BOTH) {
                    fd.release();
                }
                return true;
            }
        }
    }

    /**
     * Closes the sink: the first call shuts the socket down for writing (the peer reads end of stream), holding
     * a reference on the fd meanwhile so the shutdown can never reach a number the kernel has reused since the
     * stream's close released it; then it closes the side.
     */
    public void closeSink() {
        boolean referenced = fd.tryAcquire();
        try {
            if (closeSide(SINK) && referenced) {
                try {
                    system.shutdownWrite(fd.fd());
                } catch (KernelException alreadyGone) {
                    // The peer reset or the socket is already shut: nothing left to shut down.
                }
            }
        } finally {
            if (referenced) {
                fd.release();
            }
        }
    }
}
