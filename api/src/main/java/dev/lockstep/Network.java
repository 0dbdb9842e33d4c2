package dev.lockstep;

import java.net.InetSocketAddress;

/**
 * TCP-like streams: listeners and connections. In production these are TCP sockets with
 * {@code TCP_NODELAY}; in the simulator they are links between simulated hosts.
 */
public interface Network {

    /**
     * Binds and listens on {@code address} (port 0 picks a free port).
     *
     * @param address the local address
     * @return an operation yielding the listener; fails with {@link BindFailedException} naming the address
     */
    Operation<Listener> bind(InetSocketAddress address);

    /**
     * Connects to {@code address}.
     *
     * @param address the peer
     * @return an operation yielding the connection; fails with {@link ConnectionFailedException} naming the
     *     address
     */
    Operation<Connection> dial(InetSocketAddress address);
}
