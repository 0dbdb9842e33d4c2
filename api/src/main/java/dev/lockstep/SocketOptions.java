package dev.lockstep;

/**
 * The TCP options of a connection, set on its socket before it connects ({@link Network#dial}) or, for the
 * connections a listener accepts, on the listening socket before it listens ({@link Network#bind}), where Linux
 * hands them to every accepted socket. Immutable; the {@code with} methods return a changed copy.
 *
 * <ul>
 *   <li><b>No-delay</b> ({@code TCP_NODELAY}), on by default: a small send goes out at once instead of waiting
 *       for an earlier one's acknowledgement (Nagle's algorithm). Off trades latency for fewer packets.</li>
 *   <li><b>Keep-alive</b> ({@code SO_KEEPALIVE}), off by default: the kernel probes an idle connection and resets
 *       it if the peer is gone, with the system's timing.</li>
 *   <li><b>Send and receive buffer sizes</b> ({@code SO_SNDBUF}, {@code SO_RCVBUF}) in bytes, 0 (the default) for
 *       the system's. They bound how much a sender may have handed over that the receiver has not read: a send
 *       beyond what the sender's send buffer and the peer's receive buffer hold waits for the peer to read, so a
 *       small buffer makes a sender wait sooner. Linux doubles a size set (for its bookkeeping) and raises one
 *       below its minimum; the simulator takes the size as given, with the same effect on who waits.</li>
 * </ul>
 *
 * <p>Bad values are refused at the call with {@link IllegalArgumentException} naming the value, the same on every
 * runtime.
 */
public final class SocketOptions {
    /** No-delay on, keep-alive off, the system's buffer sizes: what {@code dial} and {@code bind} use. */
    public static final SocketOptions DEFAULTS = new SocketOptions(true, false, 0, 0);

    private final boolean noDelay;
    private final boolean keepAlive;
    private final int sendBufferBytes;
    private final int receiveBufferBytes;

    private SocketOptions(boolean noDelay, boolean keepAlive, int sendBufferBytes, int receiveBufferBytes) {
        this.noDelay = noDelay;
        this.keepAlive = keepAlive;
        this.sendBufferBytes = sendBufferBytes;
        this.receiveBufferBytes = receiveBufferBytes;
    }

    /**
     * These options with no-delay on or off.
     *
     * @param enabled whether small sends go out at once
     * @return the options
     */
    public SocketOptions withNoDelay(boolean enabled) {
        return new SocketOptions(enabled, keepAlive, sendBufferBytes, receiveBufferBytes);
    }

    /**
     * These options with keep-alive on or off.
     *
     * @param enabled whether the kernel probes an idle connection
     * @return the options
     */
    public SocketOptions withKeepAlive(boolean enabled) {
        return new SocketOptions(noDelay, enabled, sendBufferBytes, receiveBufferBytes);
    }

    /**
     * These options with a send buffer size.
     *
     * @param bytes the size, {@code > 0}, or 0 for the system's
     * @return the options
     * @throws IllegalArgumentException naming the value, if negative
     */
    public SocketOptions withSendBufferBytes(int bytes) {
        return new SocketOptions(noDelay, keepAlive, checkSize("send", bytes), receiveBufferBytes);
    }

    /**
     * These options with a receive buffer size.
     *
     * @param bytes the size, {@code > 0}, or 0 for the system's
     * @return the options
     * @throws IllegalArgumentException naming the value, if negative
     */
    public SocketOptions withReceiveBufferBytes(int bytes) {
        return new SocketOptions(noDelay, keepAlive, sendBufferBytes, checkSize("receive", bytes));
    }

    private static int checkSize(String which, int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException(which + " buffer size must not be negative (0 for the system's), was "
                    + bytes);
        }
        return bytes;
    }

    /**
     * Whether small sends go out at once ({@code TCP_NODELAY}).
     *
     * @return true by default
     */
    public boolean noDelay() {
        return noDelay;
    }

    /**
     * Whether the kernel probes an idle connection ({@code SO_KEEPALIVE}).
     *
     * @return false by default
     */
    public boolean keepAlive() {
        return keepAlive;
    }

    /**
     * The send buffer size ({@code SO_SNDBUF}).
     *
     * @return bytes, or 0 for the system's
     */
    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /**
     * The receive buffer size ({@code SO_RCVBUF}).
     *
     * @return bytes, or 0 for the system's
     */
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SocketOptions that && noDelay == that.noDelay && keepAlive == that.keepAlive
                && sendBufferBytes == that.sendBufferBytes && receiveBufferBytes == that.receiveBufferBytes;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(noDelay, keepAlive, sendBufferBytes, receiveBufferBytes);
    }

    @Override
    public String toString() {
        return "SocketOptions(noDelay=" + noDelay + ", keepAlive=" + keepAlive + ", sendBufferBytes="
                + sendBufferBytes + ", receiveBufferBytes=" + receiveBufferBytes + ")";
    }
}
