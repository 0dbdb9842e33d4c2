package dev.lockstep;

import java.net.InetSocketAddress;

/**
 * TCP-like streams: listeners and connections. In production these are TCP sockets with
 * {@code TCP_NODELAY}; in the simulator they are links between simulated hosts.
 *
 * <p>Memory: what a runner holds for received bytes grows with the bytes that arrived and is bounded per
 * connection and per runner by its {@link ReceiveLimits} (see {@link Stream}); each connection also costs a
 * descriptor and its task; a {@code recv} waiting for bytes holds no receive buffer where the runtime's ring lends
 * one when they arrive (see {@link Stream}).
 */
public interface Network {

    /**
     * Binds and listens on {@code address} (port 0 picks a free port).
     *
     * @param address the local address, resolved
     * @return an operation yielding the listener; fails with {@link BindFailedException} naming the address
     * @throws IllegalArgumentException at the call, naming the address, if it is unresolved
     */
    default Operation<Listener> bind(InetSocketAddress address) {
        return bind(address, SocketOptions.DEFAULTS);
    }

    /**
     * Binds and listens on {@code address}, every accepted connection with {@code options} (set on the listening
     * socket before it listens, which Linux hands to each accepted socket).
     *
     * @param address the local address, resolved
     * @param options the accepted connections' options, not null
     * @return as {@link #bind(InetSocketAddress)}
     * @throws IllegalArgumentException at the call, naming the address, if it is unresolved
     */
    Operation<Listener> bind(InetSocketAddress address, SocketOptions options);

    /**
     * Connects to {@code address}.
     *
     * @param address the peer, resolved
     * @return an operation yielding the connection; fails with {@link ConnectionFailedException} naming the
     *     address
     * @throws IllegalArgumentException at the call, naming the address, if it is unresolved
     */
    default Operation<Connection> dial(InetSocketAddress address) {
        return dial(address, SocketOptions.DEFAULTS);
    }

    /**
     * Connects to {@code address} with {@code options}, set on the socket before it connects.
     *
     * @param address the peer, resolved
     * @param options the connection's options, not null
     * @return as {@link #dial(InetSocketAddress)}; a kernel that refuses an option fails it with
     *     {@link ConnectionFailedException} naming the option
     * @throws IllegalArgumentException at the call, naming the address, if it is unresolved
     */
    Operation<Connection> dial(InetSocketAddress address, SocketOptions options);
}
