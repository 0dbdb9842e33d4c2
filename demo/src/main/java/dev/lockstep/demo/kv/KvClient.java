package dev.lockstep.demo.kv;

import dev.lockstep.Connection;
import dev.lockstep.Network;
import java.net.InetSocketAddress;

/**
 * A client of {@link KvServer}: one connection, one request at a time. Not thread-safe: use one client per
 * fiber. Network failures are thrown as they come ({@link dev.lockstep.NetworkException},
 * {@link dev.lockstep.TimeoutException} from an enclosing {@code ctx.timeout}); after one the connection is
 * poisoned: close the client and dial again.
 */
public final class KvClient implements AutoCloseable {
    private final Connection connection;

    private KvClient(Connection connection) {
        this.connection = connection;
    }

    /**
     * Connects.
     *
     * @param network the caller's context
     * @param server the server's address
     * @return the client
     * @throws dev.lockstep.ConnectionFailedException if the dial fails
     */
    public static KvClient connect(Network network, InetSocketAddress server) {
        return new KvClient(network.dial(server).await());
    }

    /**
     * Sends a request and waits for its response.
     *
     * @param op {@link Protocol#PUT}, {@link Protocol#GET} or {@link Protocol#DELETE}
     * @param key the key
     * @param value the value of a put, else null
     * @return the response
     */
    public Protocol.Response call(byte op, byte[] key, byte[] value) {
        connection.sink().send(Protocol.request(op, key, value)).await();
        return Protocol.readResponse(connection.stream());
    }

    /**
     * Stores a value; {@link Protocol#OK} means it is durable.
     *
     * @param key the key
     * @param value the value
     * @return the response
     */
    public Protocol.Response put(byte[] key, byte[] value) {
        return call(Protocol.PUT, key, value);
    }

    /**
     * Reads a value.
     *
     * @param key the key
     * @return {@link Protocol#OK} with the value, or {@link Protocol#NOT_FOUND}
     */
    public Protocol.Response get(byte[] key) {
        return call(Protocol.GET, key, null);
    }

    /**
     * Removes a key; {@link Protocol#OK} means the removal is durable.
     *
     * @param key the key
     * @return the response
     */
    public Protocol.Response delete(byte[] key) {
        return call(Protocol.DELETE, key, null);
    }

    @Override
    public void close() {
        connection.close();
    }
}
