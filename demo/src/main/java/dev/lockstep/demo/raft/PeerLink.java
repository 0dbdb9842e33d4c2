package dev.lockstep.demo.raft;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.NetworkException;
import dev.lockstep.TimeoutException;
import dev.lockstep.demo.raft.Messages.Message;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A node's connection to one peer, for the one task that talks to that peer: one request at a time, each given up
 * after the RPC timeout, the connection dialed when none is open and dropped after any failure, so the next call
 * dials again. Not thread-safe: one task uses it.
 */
final class PeerLink implements AutoCloseable {
    private final InetSocketAddress address;
    private final Duration rpcTimeout;
    private Connection connection;

    PeerLink(InetSocketAddress address, Duration rpcTimeout) {
        this.address = address;
        this.rpcTimeout = rpcTimeout;
    }

    /**
     * Dials the peer if no connection is open.
     *
     * @throws NetworkException if the peer cannot be reached
     * @throws TimeoutException if the dial took longer than the RPC timeout
     */
    void open(Context ctx) {
        if (connection == null) {
            connection = ctx.timeout(rpcTimeout, () -> ctx.dial(address).await());
        }
    }

    /**
     * Sends {@code request} on the connection {@link #open} opened and waits for the peer's reply.
     *
     * @throws NetworkException if the connection broke; it is dropped
     * @throws TimeoutException if the reply took longer than the RPC timeout; the connection is dropped
     * @throws MalformedMessageException if the reply is not a message; the connection is dropped
     * @throws IllegalStateException if no connection is open
     */
    Message call(Context ctx, Message request) {
        if (connection == null) {
            throw new IllegalStateException("no connection to " + address + " is open");
        }
        try {
            Connection open = connection;
            return ctx.timeout(rpcTimeout, () -> {
                Messages.send(open, request);
                return Messages.receive(open);
            });
        } catch (NetworkException | TimeoutException | MalformedMessageException failed) {
            close();
            throw failed;
        }
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
