package dev.lockstep.sim.os;

import static dev.lockstep.sim.os.NetworkTopology.direction;
import static dev.lockstep.sim.os.NetworkTopology.ip;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.BitSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.TreeMap;

/**
 * The socket state machine of a {@link SimNetwork}: every transition of a {@link SimSocket} (open, bind, listen,
 * connect, accept, send, receive, shutdown, close, reset) and the tables they share (sockets, listeners, ports
 * in use). The transitions stay together because each one updates the same tables and the peer's state in one
 * step. Delays and blocked directions come from the network's {@link NetworkTopology}; what a partition or a
 * heal does to the segments already in flight is {@link SimNetwork}'s. The behaviour is documented on
 * {@link SimNetwork}. Not thread-safe.
 */
final class SocketStateMachine {

    private static final String WILDCARD_V4 = "0.0.0.0";
    private static final String WILDCARD_V6 = "0:0:0:0:0:0:0:0";

    private final SimNetwork network;
    private final NetworkTopology topology;
    private final Generator generator;
    private final Auditor auditor;
    private final SimClock clock;
    /** Listening sockets by local address key. */
    private final TreeMap<String, SimSocket> listeners = new TreeMap<>();
    /**
     * Ports in use, by host address, a bit per port: the lowest free ephemeral port is the set's next clear bit
     * from {@link SimNetwork#FIRST_EPHEMERAL_PORT}, found without a boxed lookup per port in use.
     */
    private final TreeMap<String, BitSet> portsInUse = new TreeMap<>();
    /** Every socket not yet closed, in creation order: what partitions, heals and breaks walk. */
    private final LinkedHashMap<Long, SimSocket> sockets = new LinkedHashMap<>();
    private long nextSocketId = 1;
    /** Whether one kernel owns the whole loopback range (see {@link #claimLoopback()}). */
    private boolean loopbackClaimed;

    SocketStateMachine(SimNetwork network, NetworkTopology topology, Generator generator, Auditor auditor,
            SimClock clock) {
        this.network = network;
        this.topology = topology;
        this.generator = generator;
        this.auditor = auditor;
        this.clock = clock;
    }

    /** Every socket not yet closed, in creation order. */
    Collection<SimSocket> sockets() {
        return sockets.values();
    }

    /** One delivery delay over a link, jitter included: never negative. */
    private long delay(String fromIp, String toIp) {
        return topology.delay(fromIp, toIp, network.config().defaultLink(), generator);
    }

    private static String endpoint(String ip, int port) {
        return ip + ":" + port;
    }

    SimSocket open(InetAddress host, boolean ipv6) {
        return open(host, ipv6, false);
    }

    SimSocket open(InetAddress host, boolean ipv6, boolean loopbackMachine) {
        SimSocket socket = new SimSocket(nextSocketId++, host, ipv6, loopbackMachine);
        sockets.put(socket.id, socket);
        return socket;
    }

    /**
     * Lets one kernel own every loopback address ({@code 127.0.0.0/8} and {@code ::1}), as a Linux machine does:
     * its sockets may bind any of them, and its wildcard listeners accept connections to any of them. The
     * simulator's runner uses this for its one kernel, whose workers are the hosts {@code 127.0.0.1},
     * {@code 127.0.0.2}, ...
     *
     * @throws IllegalStateException if another kernel claimed it already
     */
    void claimLoopback() {
        if (loopbackClaimed) {
            throw new IllegalStateException("the loopback range of this SimNetwork is owned by another kernel");
        }
        loopbackClaimed = true;
    }

    private static InetAddress wildcardAddress(boolean ipv6) {
        try {
            return InetAddress.getByAddress(new byte[ipv6 ? 16 : 4]);
        } catch (java.net.UnknownHostException impossibleForRawBytes) {
            throw new IllegalStateException(impossibleForRawBytes);
        }
    }

    private boolean portUsed(String hostIp, int port) {
        BitSet used = portsInUse.get(hostIp);
        return used != null && used.get(port);
    }

    /**
     * On the loopback machine: whether a bind of (ip or the wildcard, port) collides with another bind, as Linux
     * decides with {@code SO_REUSEADDR} and {@code IPV6_V6ONLY} off: the same address collides; the IPv4 wildcard
     * collides with every IPv4 address; the IPv6 wildcard (dual stack) with every address of either family. The
     * IPv4 wildcard and a specific IPv6 address (e.g. {@code ::1}) do not collide.
     */
    private boolean loopbackPortTaken(String ip, int port) {
        for (java.util.Map.Entry<String, BitSet> entry : portsInUse.entrySet()) {
            if (entry.getValue().get(port) && collide(ip, entry.getKey())) {
                return true;
            }
        }
        return false;
    }

    private static boolean collide(String ip, String other) {
        if (ip.equals(other) || ip.equals(WILDCARD_V6) || other.equals(WILDCARD_V6)) {
            return true;
        }
        return ip.equals(WILDCARD_V4) && isIpv4(other) || other.equals(WILDCARD_V4) && isIpv4(ip);
    }

    private static boolean isIpv4(String ip) {
        return ip.indexOf(':') < 0;
    }

    /** Binds a socket of the loopback machine: any loopback address, or the wildcard for all of them. */
    private void bindLoopback(SimSocket socket, InetAddress requested, int port, String subject) {
        boolean wildcard = requested.isAnyLocalAddress();
        if (!wildcard && !requested.isLoopbackAddress()) {
            throw new KernelException(Errno.EADDRNOTAVAIL, "bind", subject);
        }
        String ip = ip(requested);
        if (port == 0) {
            port = lowestFreeLoopbackPort(ip);
            if (port < 0) {
                throw new KernelException(Errno.EADDRNOTAVAIL, "bind", subject);
            }
        } else if (loopbackPortTaken(ip, port)) {
            throw new KernelException(Errno.EADDRINUSE, "bind", subject);
        }
        if (!wildcard) {
            socket.host = requested;
            socket.hostIp = ip;
        }
        claimPort(ip, port);
        socket.ownsPort = true;
        socket.local = new InetSocketAddress(wildcard ? wildcardAddress(requested instanceof java.net.Inet6Address)
                : requested, port);
        socket.state = SimSocket.State.LISTENING;
        socket.readinessChanged();
        listeners.put(endpoint(ip, port), socket);
    }

    /** The listener a connect to (serverIp, port) reaches: a bound one, or a wildcard one of the loopback machine. */
    private SimSocket listenerFor(String serverIp, InetAddress serverAddress, int port) {
        SimSocket listener = listeners.get(endpoint(serverIp, port));
        if (listener == null && loopbackClaimed && serverAddress.isLoopbackAddress()) {
            // The IPv4 wildcard takes IPv4 dials only; the IPv6 wildcard (dual stack) takes both, as on Linux.
            if (!(serverAddress instanceof java.net.Inet6Address)) {
                listener = listeners.get(endpoint(WILDCARD_V4, port));
            }
            if (listener == null) {
                listener = listeners.get(endpoint(WILDCARD_V6, port));
            }
            if (listener != null && !listener.loopbackMachine) {
                listener = null;
            }
        }
        return listener;
    }

    /**
     * The lowest ephemeral port free on the loopback machine for a bind to {@code ip}: in use on no address that
     * collides with it ({@link #loopbackPortTaken}); -1 if none is.
     */
    private int lowestFreeLoopbackPort(String ip) {
        // Each colliding set moves the candidate up to its own next free port; every port skipped is taken in the
        // set that skipped it, so a pass that moves nothing ends on the lowest port free in all of them, with no
        // allocation per bind or connect.
        int port = SimNetwork.FIRST_EPHEMERAL_PORT;
        boolean moved = true;
        while (moved && port <= SimNetwork.LAST_EPHEMERAL_PORT) {
            moved = false;
            for (java.util.Map.Entry<String, BitSet> entry : portsInUse.entrySet()) {
                if (collide(ip, entry.getKey())) {
                    int free = entry.getValue().nextClearBit(port);
                    if (free != port) {
                        port = free;
                        moved = true;
                    }
                }
            }
        }
        return port <= SimNetwork.LAST_EPHEMERAL_PORT ? port : -1;
    }

    private int ephemeralPort(String hostIp, String call, Object subject) {
        return ephemeralPort(hostIp, false, call, subject);
    }

    /**
     * The lowest ephemeral port free on {@code hostIp} (on the loopback machine: free on every address that collides
     * with it); {@code subject} is put into words only for the error when none is.
     */
    private int ephemeralPort(String hostIp, boolean loopbackMachine, String call, Object subject) {
        int port = loopbackMachine ? lowestFreeLoopbackPort(hostIp)
                : portsInUse.computeIfAbsent(hostIp, ignored -> new BitSet()).nextClearBit(SimNetwork.FIRST_EPHEMERAL_PORT);
        if (port < 0 || port > SimNetwork.LAST_EPHEMERAL_PORT) {
            throw new KernelException(Errno.EADDRNOTAVAIL, call, String.valueOf(subject));
        }
        return port;
    }

    private void claimPort(String hostIp, int port) {
        portsInUse.computeIfAbsent(hostIp, ignored -> new BitSet()).set(port);
    }

    /** An address as runtime-uring's system calls name it in their errors: {@code 0.0.0.0:80}, {@code [::1]:80}. */
    private static String describe(InetSocketAddress address) {
        java.net.InetAddress ip = address.getAddress();
        String host = ip == null ? address.getHostString() : ip.getHostAddress();
        return (ip instanceof java.net.Inet6Address ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    private void freePort(InetSocketAddress address) {
        BitSet used = portsInUse.get(address.getAddress().getHostAddress());
        if (used != null) {
            used.clear(address.getPort());
        }
    }

    /** Binds with {@code SO_REUSEADDR} and listens. */
    void bindAndListen(SimSocket socket, InetSocketAddress address, int backlog) {
        String subject = describe(address);
        if (address.isUnresolved()) {
            throw new KernelException(Errno.EINVAL, "bind", subject);
        }
        if (socket.state != SimSocket.State.OPEN || socket.local != null) {
            throw new KernelException(Errno.EINVAL, "bind", subject);
        }
        InetAddress requested = address.getAddress();
        if (socket.loopbackMachine) {
            bindLoopback(socket, requested, address.getPort(), subject);
            return;
        }
        if (!requested.isAnyLocalAddress() && !ip(requested).equals(socket.hostIp)) {
            throw new KernelException(Errno.EADDRNOTAVAIL, "bind", subject);
        }
        int port = address.getPort();
        if (port == 0) {
            port = ephemeralPort(socket.hostIp, "bind", subject);
        } else if (portUsed(socket.hostIp, port)) {
            throw new KernelException(Errno.EADDRINUSE, "bind", subject);
        }
        claimPort(socket.hostIp, port);
        socket.ownsPort = true;
        socket.local = new InetSocketAddress(socket.host, port);
        socket.state = SimSocket.State.LISTENING;
        socket.readinessChanged();
        listeners.put(endpoint(socket.hostIp, port), socket);
    }

    /** Starts a connect; the ring completes it with the outcome's result at the outcome's time. */
    SimNetwork.ConnectOutcome connect(SimSocket client, InetSocketAddress remote) {
        long now = clock.nowNanos();
        switch (client.state) {
            case CONNECTED -> {
                return new SimNetwork.ConnectOutcome(-SimNetwork.EISCONN, now);
            }
            case LISTENING -> {
                return new SimNetwork.ConnectOutcome(-Errno.EINVAL, now);
            }
            case CLOSED -> {
                return new SimNetwork.ConnectOutcome(-Errno.EBADF, now);
            }
            case OPEN -> {
                // fall through to the attempt below
            }
        }
        if (client.local == null) {
            int port;
            try {
                port = ephemeralPort(client.hostIp, client.loopbackMachine, "connect", remote);
            } catch (KernelException e) {
                return new SimNetwork.ConnectOutcome(-e.errno(), now);
            }
            claimPort(client.hostIp, port);
            client.ownsPort = true;
            client.local = new InetSocketAddress(client.host, port);
        }
        InetAddress serverAddress = remote.getAddress().isAnyLocalAddress() ? client.host : remote.getAddress();
        String serverIp = ip(serverAddress);
        if (topology.isBlocked(direction(client.hostIp, serverIp))
                || topology.isBlocked(direction(serverIp, client.hostIp))) {
            return new SimNetwork.ConnectOutcome(-Errno.ETIMEDOUT, now + network.config().connectTimeoutNanos());
        }
        long toServer = delay(client.hostIp, serverIp);
        long toClient = delay(serverIp, client.hostIp);
        SimSocket listener = listenerFor(serverIp, serverAddress, remote.getPort());
        if (listener == null || remote.getPort() == 0) {
            return new SimNetwork.ConnectOutcome(-Errno.ECONNREFUSED, now + toServer + toClient);
        }
        // The server's end is the address the client dialled (a wildcard listener accepts on every address).
        InetAddress serverHost = listener.local.getAddress().isAnyLocalAddress() ? serverAddress : listener.host;
        SimSocket server = open(serverHost, listener.ipv6, listener.loopbackMachine);
        server.state = SimSocket.State.CONNECTED;
        server.sendBufferBytes = listener.sendBufferBytes; // as Linux, an accepted socket inherits the sizes
        server.receiveBufferBytes = listener.receiveBufferBytes;
        server.local = new InetSocketAddress(serverHost, remote.getPort());
        server.remote = client.local;
        server.peer = client;
        server.lastArrivalNanos = now + toServer;
        client.state = SimSocket.State.CONNECTED;
        client.remote = new InetSocketAddress(serverHost, remote.getPort());
        client.peer = server;
        client.lastArrivalNanos = now + toServer + toClient;
        client.connectInProgress = true;
        listener.acceptQueue.add(new SimSocket.PendingAccept(server, now + toServer));
        server.readinessChanged();
        client.readinessChanged();
        listener.readinessChanged();
        return new SimNetwork.ConnectOutcome(0, now + toServer + toClient);
    }

    /** The connect completed (successfully or not) and was delivered. */
    void connectDelivered(SimSocket client) {
        client.connectInProgress = false;
    }

    /** A connect in progress was cancelled: the half-made connection is reset, as the kernel aborts it. */
    void connectCancelled(SimSocket client) {
        if (client.connectInProgress && client.peer != null) {
            client.connectInProgress = false;
            resetConnection(client, clock.nowNanos());
        }
    }

    /** The earliest time an accept on this listener can complete; now for a socket that is not listening. */
    long acceptableAtNanos(SimSocket listener) {
        if (listener.state != SimSocket.State.LISTENING) {
            return Long.MIN_VALUE;
        }
        long earliest = Long.MAX_VALUE;
        for (SimSocket.PendingAccept pending : listener.acceptQueue) {
            earliest = Math.min(earliest, pending.readyNanos());
        }
        return earliest;
    }

    /** Takes the first connection ready to accept, or null if none is; fails if not listening. */
    SimSocket accept(SimSocket listener) {
        if (listener.state != SimSocket.State.LISTENING) {
            throw new KernelException(Errno.EINVAL, "accept", String.valueOf(listener.local));
        }
        long now = clock.nowNanos();
        SimSocket.PendingAccept chosen = null;
        for (SimSocket.PendingAccept pending : listener.acceptQueue) {
            if (pending.readyNanos() <= now && (chosen == null || pending.readyNanos() < chosen.readyNanos())) {
                chosen = pending;
            }
        }
        if (chosen == null) {
            return null;
        }
        listener.acceptQueue.remove(chosen);
        listener.readinessChanged();
        return chosen.serverEnd();
    }

    /** The earliest time a receive on this socket can complete: data, end of stream, reset or an error. */
    long readableAtNanos(SimSocket socket) {
        if (socket.state != SimSocket.State.CONNECTED) {
            return Long.MIN_VALUE;
        }
        SimSocket.Segment head = socket.inbound.peekFirst();
        long dataAt = head == null ? Long.MAX_VALUE : head.arrivalNanos;
        return Math.min(dataAt, socket.resetAtNanos);
    }

    /**
     * Receives up to {@code length} bytes that have arrived.
     *
     * @return the bytes copied; 0 at end of stream (or for {@code length == 0}); {@code -EAGAIN} if nothing has
     *         arrived; {@code -ECONNRESET}; {@code -ENOTCONN}
     */
    int recv(SimSocket socket, java.lang.foreign.MemorySegment destination, int length) {
        if (socket.state != SimSocket.State.CONNECTED) {
            return -Errno.ENOTCONN;
        }
        long now = clock.nowNanos();
        boolean reset = now >= socket.resetAtNanos;
        // Data that arrived before the reset is received first, as Linux's tcp_recvmsg copies what the receive
        // queue holds before it reports the socket's error; the reset fails the receive once none is left.
        long deliverableUntil = reset ? socket.resetAtNanos - 1 : now;
        SimSocket.Segment first = socket.inbound.peekFirst();
        if (reset && (length == 0 || first == null || first.isFin() || first.arrivalNanos > deliverableUntil)) {
            return -Errno.ECONNRESET;
        }
        if (length == 0) {
            return 0;
        }
        int copied = 0;
        while (copied < length) {
            SimSocket.Segment head = socket.inbound.peekFirst();
            if (head == null || head.arrivalNanos > deliverableUntil) {
                break;
            }
            if (head.isFin()) {
                return copied; // the FIN stays queued: every later receive also sees end of stream
            }
            int count = Math.min(length - copied, head.data.length - head.consumed);
            java.lang.foreign.MemorySegment.copy(head.data, head.consumed, destination,
                    java.lang.foreign.ValueLayout.JAVA_BYTE, copied, count);
            head.consumed += count;
            copied += count;
            socket.unreadBytes -= count;
            if (head.consumed == head.data.length) {
                socket.inbound.removeFirst();
                socket.readinessChanged();
            }
        }
        if (copied > 0 && socket.peer != null) {
            socket.peer.readinessChanged(); // its sends may fit again
        }
        return copied > 0 ? copied : -Errno.EAGAIN;
    }

    /**
     * How many bytes a ring send on this socket may hand over now: the room left in the connection's buffers
     * toward the peer (this end's send buffer and the peer's receive buffer, {@link SimNetwork#SOCKET_BUFFER_BYTES}
     * by default, less what the peer has not received), or
     * {@link Integer#MAX_VALUE} when the send will not queue data (it fails, or the peer is gone).
     */
    int sendWindow(SimSocket socket) {
        if (socket.state != SimSocket.State.CONNECTED || clock.nowNanos() >= socket.resetAtNanos
                || socket.writeShutdown || socket.peer.state == SimSocket.State.CLOSED) {
            return Integer.MAX_VALUE;
        }
        return (int) Math.max(0, bufferedBound(socket) - socket.peer.unreadBytes);
    }

    /** The earliest time a ring send on this socket can proceed: now if there is room, else its reset time. */
    long writableAtNanos(SimSocket socket) {
        if (socket.state != SimSocket.State.CONNECTED || socket.writeShutdown
                || socket.peer.state == SimSocket.State.CLOSED
                || socket.peer.unreadBytes < bufferedBound(socket)) {
            return Long.MIN_VALUE;
        }
        return socket.resetAtNanos;
    }

    /**
     * The most bytes sent on {@code socket} that its peer may not have received: what the sender's send buffer and
     * the receiver's receive buffer hold together.
     */
    private static long bufferedBound(SimSocket socket) {
        return (long) socket.sendBufferBytes + socket.peer.receiveBufferBytes;
    }

    /**
     * Sends {@code length} bytes: queued for the peer, to arrive one link delay from now.
     *
     * @param owned whether {@code source} is an array nobody else holds or changes, which the peer's queue may
     *              keep instead of a copy when it is exactly the bytes sent
     * @return {@code length}, or {@code -ECONNRESET}, {@code -EPIPE} (after {@code shutdownWrite}),
     *         {@code -ENOTCONN}
     */
    int send(SimSocket socket, byte[] source, int sourceOffset, int length, boolean owned) {
        if (socket.state != SimSocket.State.CONNECTED) {
            return -Errno.ENOTCONN;
        }
        long now = clock.nowNanos();
        if (now >= socket.resetAtNanos) {
            return -Errno.ECONNRESET;
        }
        if (socket.writeShutdown) {
            return -Errno.EPIPE;
        }
        if (generator.chance(Site.NETWORK_BREAK, network.config().breakRate())) {
            resetConnection(socket, now);
            return -Errno.ECONNRESET;
        }
        if (length == 0) {
            return 0;
        }
        SimSocket peer = socket.peer;
        if (peer.state == SimSocket.State.CLOSED) {
            // The peer's kernel answers data for a closed socket with a reset, one round trip later.
            socket.resetAt(now + delay(socket.hostIp, peer.hostIp) + delay(peer.hostIp, socket.hostIp));
            return length;
        }
        byte[] data = OwnedBytes.of(source, sourceOffset, length, owned);
        enqueue(socket, peer, data, now);
        return length;
    }

    private void enqueue(SimSocket from, SimSocket to, byte[] data, long now) {
        long arrival;
        SimSocket.Segment last = to.inbound.peekLast();
        String direction = from.directionTo(to);
        if (topology.isBlocked(direction) || (last != null && last.arrivalNanos == SimSocket.HELD)) {
            arrival = SimSocket.HELD;
        } else {
            arrival = Math.max(now + topology.delay(direction, network.config().defaultLink(), generator),
                    to.lastArrivalNanos);
            to.lastArrivalNanos = arrival;
        }
        to.inbound.addLast(new SimSocket.Segment(data, arrival));
        if (data != null) {
            to.unreadBytes += data.length;
            from.readinessChanged(); // its room toward the peer shrank
        }
        to.readinessChanged();
    }

    /** Shuts down the writing side: the peer receives end of stream after the data already sent. */
    void shutdownWrite(SimSocket socket) {
        if (socket.state != SimSocket.State.CONNECTED) {
            throw new KernelException(Errno.ENOTCONN, "shutdownWrite", String.valueOf(socket.local));
        }
        if (!socket.writeShutdown) {
            socket.writeShutdown = true;
            socket.readinessChanged();
            if (socket.peer.state != SimSocket.State.CLOSED) {
                enqueue(socket, socket.peer, null, clock.nowNanos());
            }
        }
    }

    /** Releases a socket for good: FIN (or reset, with unread data) to its peer, pending accepts reset. */
    void close(SimSocket socket) {
        if (socket.state == SimSocket.State.CLOSED) {
            return;
        }
        long now = clock.nowNanos();
        switch (socket.state) {
            case LISTENING -> {
                listeners.remove(endpoint(ip(socket.local.getAddress()), socket.local.getPort()));
                for (SimSocket.PendingAccept pending : socket.acceptQueue) {
                    SimSocket server = pending.serverEnd();
                    server.peer.resetAt(now + delay(server.hostIp, server.peer.hostIp));
                    server.state = SimSocket.State.CLOSED;
                    server.readinessChanged();
                    sockets.remove(server.id);
                }
                socket.acceptQueue.clear();
            }
            case CONNECTED -> {
                SimSocket peer = socket.peer;
                boolean unread = false;
                for (Iterator<SimSocket.Segment> it = socket.inbound.iterator(); it.hasNext() && !unread; ) {
                    unread = !it.next().isFin();
                }
                if (peer.state != SimSocket.State.CLOSED && now < socket.resetAtNanos) {
                    if (unread) {
                        peer.resetAt(now + delay(socket.hostIp, peer.hostIp));
                    } else if (!socket.writeShutdown) {
                        enqueue(socket, peer, null, now);
                    }
                }
            }
            case OPEN, CLOSED -> {
            }
        }
        if (socket.ownsPort) {
            freePort(socket.local);
            socket.ownsPort = false;
        }
        socket.state = SimSocket.State.CLOSED;
        socket.inbound.clear();
        socket.unreadBytes = 0;
        socket.readinessChanged();
        if (socket.peer != null) {
            socket.peer.readinessChanged(); // a send waiting for room toward this end goes on
        }
        sockets.remove(socket.id);
    }

    void resetConnection(SimSocket socket, long atNanos) {
        auditor.record("net.reset", Auditor.utf8(String.valueOf(socket.local)),
                Auditor.utf8(String.valueOf(socket.remote)), Auditor.u64(atNanos));
        socket.resetAt(atNanos);
        socket.peer.resetAt(atNanos);
    }
}
