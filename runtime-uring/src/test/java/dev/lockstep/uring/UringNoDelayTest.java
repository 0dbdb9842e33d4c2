package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.SocketOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code TCP_NODELAY} as {@link SocketOptions} sets it is what the kernel holds on the sockets of the production
 * runner's connections, dialed and accepted: on by default, so that a small reply goes out at once rather than
 * behind Nagle's algorithm and the peer's delayed acknowledgement (a request-reply exchange would otherwise stall
 * for tens of milliseconds), and off when the options say so. Each connection's socket is found among this
 * process's fds by its addresses and read back with {@code getsockopt}.
 */
class UringNoDelayTest {
    private static final int AF_INET = 2;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_NODELAY = 1;
    private static final int ANY_PEER = -2;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle GETSOCKOPT = libc("getsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle GETSOCKNAME = libc("getsockname", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle GETPEERNAME = libc("getpeername", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));

    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }

    /** The IPv4 port of {@code fd}'s own or peer address, or -1 if it has none (not a connected IPv4 socket). */
    private static int port(MethodHandle call, int fd) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment address = arena.allocate(128);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, 128);
            if ((int) call.invokeExact(fd, address, length) != 0
                    || address.get(ValueLayout.JAVA_SHORT, 0) != AF_INET) {
                return -1;
            }
            return Short.toUnsignedInt(address.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        }
    }

    private static int noDelay(int fd) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, 4);
            assertEquals(0, (int) GETSOCKOPT.invokeExact(fd, IPPROTO_TCP, TCP_NODELAY, value, length),
                    "getsockopt(TCP_NODELAY) of fd " + fd);
            return value.get(ValueLayout.JAVA_INT, 0) != 0 ? 1 : 0;
        }
    }

    /**
     * The connected IPv4 sockets of this process with local port {@code local} (or any, -1) and peer port
     * {@code peer} (or any, {@link #ANY_PEER}). The JDK's own sockets are IPv6 ones (dual-stack), never among them.
     */
    private static List<Integer> sockets(int local, int peer) throws Throwable {
        List<Integer> found = new ArrayList<>();
        for (Map.Entry<Integer, String> fd : OpenDescriptors.fds().entrySet()) {
            int peerPort = fd.getValue().startsWith("socket:") ? port(GETPEERNAME, fd.getKey()) : -1;
            if (peerPort >= 0 && (peer == ANY_PEER || peerPort == peer)
                    && (local < 0 || port(GETSOCKNAME, fd.getKey()) == local)) {
                found.add(fd.getKey());
            }
        }
        return found;
    }

    /**
     * The kernel's {@code TCP_NODELAY} (1 or 0) of a connection the runner dials with {@code options} and of one
     * its listener, bound with {@code options}, accepts; each with a plain JDK peer on loopback.
     */
    private static int[] noDelayOfDialedAndAccepted(SocketOptions options) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket peerServer = new ServerSocket(0, 4, loopback)) {
            return UringRunner.builder().workers(1).ringEntries(8).build().start(ctx -> {
                try (Listener listener = ctx.bind(new InetSocketAddress(loopback, 0), options).await();
                     Connection dialed = ctx.dial(new InetSocketAddress(loopback, peerServer.getLocalPort()), options)
                             .await();
                     SocketChannel peerClient = SocketChannel.open()) {
                    // Non-blocking, so the fiber never parks in the JDK: the handshake completes in the listen queue
                    // and the runner's accept below takes it.
                    peerClient.configureBlocking(false);
                    peerClient.connect(new InetSocketAddress(loopback, listener.localAddress().getPort()));
                    try (Connection accepted = listener.accept().await()) {
                        List<Integer> dialedFds = sockets(-1, peerServer.getLocalPort());
                        List<Integer> acceptedFds = sockets(listener.localAddress().getPort(), ANY_PEER);
                        assertEquals(1, dialedFds.size(), "sockets connected to the peer's server: " + dialedFds);
                        assertEquals(1, acceptedFds.size(), "sockets accepted by the listener: " + acceptedFds);
                        return new int[] {noDelay(dialedFds.get(0)), noDelay(acceptedFds.get(0))};
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable e) {
                    throw new AssertionError(e);
                }
            });
        }
    }

    @Test
    void dialedAndAcceptedConnectionsHaveNoDelayByDefault() throws IOException {
        int[] noDelay = noDelayOfDialedAndAccepted(SocketOptions.DEFAULTS);
        assertEquals(1, noDelay[0], "TCP_NODELAY of a dialed connection");
        assertEquals(1, noDelay[1], "TCP_NODELAY of an accepted connection");
    }

    @Test
    void noDelayOffLeavesNaglesAlgorithmOn() throws IOException {
        int[] noDelay = noDelayOfDialedAndAccepted(SocketOptions.DEFAULTS.withNoDelay(false));
        assertEquals(0, noDelay[0], "TCP_NODELAY of a dialed connection");
        assertEquals(0, noDelay[1], "TCP_NODELAY of an accepted connection");
    }
}
