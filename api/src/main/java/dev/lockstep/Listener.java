package dev.lockstep;

import java.net.InetSocketAddress;

/**
 * A bound, listening socket. Closing it stops accepting: a pending accept is closed (its awaiter reads
 * {@link ClosedException}, a connection it accepted and nobody took is closed), later accepts are refused and the
 * socket is closed once the kernel let go of it. Accepted connections live on.
 */
public interface Listener extends AutoCloseable {

    /**
     * Accepts the next connection.
     *
     * @return an operation yielding it; closing the operation cancels the accept
     */
    Operation<Connection> accept();

    /**
     * The bound address, with the actual port.
     *
     * @return the address
     */
    InetSocketAddress localAddress();

    @Override
    void close();
}
