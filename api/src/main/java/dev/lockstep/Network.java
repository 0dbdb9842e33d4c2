package dev.lockstep;

import java.net.InetSocketAddress;

/**
 * TCP-like streams: listeners and connections. In production these are TCP sockets with
 * {@code TCP_NODELAY}; in the simulator they are links between simulated hosts.
 *
 * <p>Memory: what a runner holds for received bytes grows with the bytes that arrived and is bounded per
 * connection and per runner by its {@link ReceiveLimits} (see {@link Stream}); each connection also costs a
 * descriptor and, while a {@code recv} is pending, one native receive chunk of 16 to 64 KiB.
 */
public interface Network {

    /**
     * Binds and listens on {@code address} (port 0 picks a free port).
     *
     * @param address the local address, resolved
     * @return an operation yielding the listener; fails with {@link BindFailedException} naming the address
     * @throws IllegalArgumentException at the call, naming the address, if it is unresolved
     */
    Operation<Listener> bind(InetSocketAddress address);

    /**
     * Connects to {@code address}.
     *
     * @param address the peer, resolved
     * @return an operation yielding the connection; fails with {@link ConnectionFailedException} naming the
     *     address
     * @throws IllegalArgumentException at the call, naming the address, if it is unresolved
     */
    Operation<Connection> dial(InetSocketAddress address);
}
