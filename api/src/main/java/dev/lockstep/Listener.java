package dev.lockstep;

import java.net.InetSocketAddress;

/** A bound, listening socket. Closing it stops accepting; accepted connections live on. */
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
