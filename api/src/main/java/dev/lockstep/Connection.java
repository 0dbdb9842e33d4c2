package dev.lockstep;

import java.net.InetSocketAddress;

/**
 * A connected stream, split into its two sides. Each side is poisoned independently: after a failed or
 * cancelled send the sink refuses further sends with {@link ClosedException}, and likewise for the stream;
 * the other side keeps working. Closing the connection closes both sides and the socket, and gives back the
 * memory its stream held for received bytes (bounded by the runner's {@link ReceiveLimits}, see {@link Stream}).
 *
 * @param sink the sending side
 * @param stream the receiving side
 * @param peer the remote address
 */
public record Connection(Sink sink, Stream stream, InetSocketAddress peer) implements AutoCloseable {
    @Override
    public void close() {
        sink.close();
        stream.close();
    }
}
