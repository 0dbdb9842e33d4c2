package dev.lockstep.sim;

import static dev.lockstep.sim.NetworkTopology.direction;
import static dev.lockstep.sim.NetworkTopology.ip;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A simulated TCP network between simulated hosts, shared by every {@link SimKernel} of a simulation.
 *
 * <h2>Model</h2>
 * <ul>
 *   <li><b>Addresses.</b> The simulator owns the address space: each host (one {@link SimKernel}) has exactly
 *       one address, usually loopback-like ({@code 127.0.0.1}, {@code 127.0.0.2}, ...). A socket may bind its
 *       host's address or the wildcard (which means its host's address); any other address fails
 *       {@code EADDRNOTAVAIL}. One kernel may instead own the whole loopback range ({@code claimLoopback()}, what
 *       {@link SimRunner} does, one host per worker): its sockets may bind any {@code 127.0.0.0/8} address or
 *       {@code ::1} and are then on that host, and its wildcard listeners accept connections to every loopback
 *       address, the accepted end being on the address dialled.
 *       Port 0 and connects from unbound sockets take the lowest free ephemeral port
 *       from {@value #FIRST_EPHEMERAL_PORT}. A port in use on an address (by a listener or a connection's local
 *       end) fails {@code EADDRINUSE}; closing frees it at once ({@code SO_REUSEADDR}, no {@code TIME_WAIT}).</li>
 *   <li><b>Delay.</b> Every link (a direction between two host addresses) has a {@link LinkProfile}; a
 *       segment sent at {@code t} arrives at {@code t + latency ± jitter}, but never before the previous segment
 *       of its connection and direction: delivery is in order per connection.</li>
 *   <li><b>Connect.</b> Decided when the connect is issued. Nobody listening: fails {@code ECONNREFUSED} after
 *       one round trip. A partition in either direction between the two hosts: fails {@code ETIMEDOUT} after
 *       {@link NetworkConfig#connectTimeoutNanos()} (the simulator drops packets across a partition, as a real
 *       one does, so the refusal never arrives). Otherwise the server's end is acceptable after one one-way
 *       delay and the connect succeeds after a round trip. The listen backlog is not enforced.</li>
 *   <li><b>Partitions</b> are by host address, one-way or symmetric. A partition drops nothing that is already
 *       delivered and breaks no connection: segments sent across it, or not yet arrived when it began, are held
 *       (TCP retransmits them) and arrive, in order, one delay after the partition heals. Programs that need a
 *       partition to end a connection must use deadlines, as with a real network.</li>
 *   <li><b>Breaks</b> (resets): {@link #breakConnection}, {@link #breakConnections}, or a seeded send with
 *       {@link NetworkConfig#breakRate()}. Both ends are reset at once, discarding unread data: every later
 *       receive and send fails {@code ECONNRESET}.</li>
 *   <li><b>Close</b> sends a FIN after the data already sent: the peer receives the data, then end of stream
 *       (0). Closing with unread received data resets the peer instead, as Linux does. Sending to a peer that
 *       has closed loses the data, and the sender is reset one round trip later.</li>
 *   <li>There is no flow control: sends never block and receive queues are unbounded.</li>
 * </ul>
 *
 * <p>The socket-level calls are package-private: the kernel makes them, on behalf of fds. Not thread-safe: the
 * simulator uses it from its one thread.
 *
 * <h2>Layout</h2>
 * This class is the socket state machine: every transition of a {@link SimSocket} (bind, listen, connect,
 * accept, send, receive, shutdown, close, reset) and the tables they share (sockets, listeners, ports in use).
 * The topology — link delays and partitioned directions — is {@link NetworkTopology}'s. The transitions stay
 * together, past 600 lines, because each one updates the same tables and the peer's state in one step.
 */
public final class SimNetwork {

    /** The first port handed out for port 0 and for unbound connecting sockets. */
    public static final int FIRST_EPHEMERAL_PORT = 32768;
    /** The last ephemeral port. */
    public static final int LAST_EPHEMERAL_PORT = 60999;
    /** Not in {@link Errno}: connect on a socket that is already connected. */
    static final int EISCONN = 106;

    /** A segment's arrival time while a partition holds it. */
    private static final long HELD = Long.MAX_VALUE;

    private final Generator generator;
    private final Auditor auditor;
    private final SimClock clock;
    private NetworkConfig config;
    private final NetworkTopology topology = new NetworkTopology();
    /** Listening sockets by local address key. */
    private final TreeMap<String, SimSocket> listeners = new TreeMap<>();
    /** Ports in use, by host address. */
    private final TreeMap<String, TreeSet<Integer>> portsInUse = new TreeMap<>();
    /** Every socket not yet closed, in creation order: what partitions, heals and breaks walk. */
    private final LinkedHashMap<Long, SimSocket> sockets = new LinkedHashMap<>();
    private long nextSocketId = 1;
    /** Whether one kernel owns the whole loopback range (see {@link #claimLoopback()}). */
    private boolean loopbackClaimed;

    /**
     * A network with no hosts, no partitions and no connections.
     *
     * @param generator the seeded source of jitter and breaks
     * @param auditor records partitions, heals and breaks (socket calls are recorded by the kernel)
     * @param clock simulated time
     * @param config the behaviour
     */
    public SimNetwork(Generator generator, Auditor auditor, SimClock clock, NetworkConfig config) {
        this.generator = Objects.requireNonNull(generator, "generator");
        this.auditor = Objects.requireNonNull(auditor, "auditor");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * The current configuration.
     *
     * @return the configuration
     */
    public NetworkConfig config() {
        return config;
    }

    /**
     * Replaces the configuration; effective for later deliveries and connects.
     *
     * @param config the configuration
     */
    public void setConfig(NetworkConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    // ----------------------------------------------------------------------------------------------- topology

    /**
     * Sets the delay of the link from one host to another (one direction).
     *
     * @param from the sending host
     * @param to the receiving host
     * @param profile its delay
     */
    public void setLink(InetAddress from, InetAddress to, LinkProfile profile) {
        topology.setLink(direction(ip(from), ip(to)), profile);
    }

    /**
     * Sets the delay of the links between two hosts, both directions.
     *
     * @param a one host
     * @param b the other
     * @param profile the delay of each direction
     */
    public void setLinks(InetAddress a, InetAddress b, LinkProfile profile) {
        setLink(a, b, profile);
        setLink(b, a, profile);
    }

    /**
     * The delay profile of a link.
     *
     * @param from the sending host
     * @param to the receiving host
     * @return its profile, or the default
     */
    public LinkProfile link(InetAddress from, InetAddress to) {
        return topology.link(direction(ip(from), ip(to)), config.defaultLink());
    }

    /**
     * Cuts both directions between two hosts. Idempotent.
     *
     * @param a one host
     * @param b the other
     */
    public void partition(InetAddress a, InetAddress b) {
        partitionOneWay(a, b);
        partitionOneWay(b, a);
    }

    /**
     * Cuts one direction: packets from {@code from} to {@code to} are dropped (held, for connections) until
     * healed. Idempotent.
     *
     * @param from the host whose packets are dropped
     * @param to their destination
     */
    public void partitionOneWay(InetAddress from, InetAddress to) {
        String key = direction(ip(from), ip(to));
        if (!topology.block(key)) {
            return;
        }
        auditor.record("net.partition", Auditor.utf8(key), Auditor.u64(clock.nowNanos()));
        long now = clock.nowNanos();
        for (SimSocket socket : sockets.values()) {
            if (socket.peer != null && receivesOver(socket, key)) {
                for (SimSocket.Segment segment : socket.inbound) {
                    if (segment.arrivalNanos > now) {
                        segment.arrivalNanos = HELD;
                    }
                }
            }
        }
    }

    /**
     * Restores both directions between two hosts; held segments are delivered, in order, one delay from now.
     *
     * @param a one host
     * @param b the other
     */
    public void heal(InetAddress a, InetAddress b) {
        healOneWay(a, b);
        healOneWay(b, a);
    }

    /**
     * Restores one direction.
     *
     * @param from the sending host
     * @param to the receiving host
     */
    public void healOneWay(InetAddress from, InetAddress to) {
        String key = direction(ip(from), ip(to));
        if (topology.unblock(key)) {
            auditor.record("net.heal", Auditor.utf8(key), Auditor.u64(clock.nowNanos()));
            releaseHeld(key);
        }
    }

    /** Restores every direction. */
    public void healAll() {
        for (String key : topology.blockedDirections()) {
            topology.unblock(key);
            auditor.record("net.heal", Auditor.utf8(key), Auditor.u64(clock.nowNanos()));
            releaseHeld(key);
        }
    }

    /**
     * Whether packets from one host to another are dropped.
     *
     * @param from the sending host
     * @param to the receiving host
     * @return true while partitioned
     */
    public boolean isPartitioned(InetAddress from, InetAddress to) {
        return topology.isBlocked(direction(ip(from), ip(to)));
    }

    private boolean receivesOver(SimSocket socket, String directionKey) {
        return direction(socket.peer.hostIp, socket.hostIp).equals(directionKey);
    }

    private void releaseHeld(String directionKey) {
        long now = clock.nowNanos();
        for (SimSocket socket : sockets.values()) {
            if (socket.peer == null || !receivesOver(socket, directionKey)) {
                continue;
            }
            long previous = Long.MIN_VALUE;
            for (SimSocket.Segment segment : socket.inbound) {
                if (segment.arrivalNanos == HELD) {
                    segment.arrivalNanos = Math.max(previous, now + delay(socket.peer.hostIp, socket.hostIp));
                }
                previous = segment.arrivalNanos;
            }
            socket.lastArrivalNanos = Math.max(socket.lastArrivalNanos, previous);
        }
    }

    /**
     * Resets both ends of the connection between two endpoints, if there is one.
     *
     * @param local one end's address
     * @param remote the other end's address
     * @return true if a connection was found and reset
     */
    public boolean breakConnection(InetSocketAddress local, InetSocketAddress remote) {
        for (SimSocket socket : sockets.values()) {
            if (socket.peer != null && socket.state == SimSocket.State.CONNECTED && local.equals(socket.local)
                    && remote.equals(socket.remote)) {
                resetConnection(socket, clock.nowNanos());
                return true;
            }
        }
        return false;
    }

    /**
     * Resets every connection with an end on a host, as if its network cable were cut and reconnected.
     *
     * @param host the host
     * @return the number of connections reset
     */
    public int breakConnections(InetAddress host) {
        String hostIp = ip(host);
        long now = clock.nowNanos();
        int count = 0;
        for (SimSocket socket : sockets.values()) {
            if (socket.peer != null && socket.state == SimSocket.State.CONNECTED && socket.resetAtNanos > now
                    && (socket.hostIp.equals(hostIp) || socket.peer.hostIp.equals(hostIp))) {
                resetConnection(socket, now);
                count++;
            }
        }
        return count;
    }

    private void resetConnection(SimSocket socket, long atNanos) {
        auditor.record("net.reset", Auditor.utf8(String.valueOf(socket.local)),
                Auditor.utf8(String.valueOf(socket.remote)), Auditor.u64(atNanos));
        socket.resetAt(atNanos);
        socket.peer.resetAt(atNanos);
    }

    /** One delivery delay over a link, jitter included: never negative. */
    private long delay(String fromIp, String toIp) {
        return topology.delay(fromIp, toIp, config.defaultLink(), generator);
    }

    // ---------------------------------------------------------------------------------------------- sockets

    /** The outcome of a connect, decided when it is issued. */
    record ConnectOutcome(int result, long completesAtNanos) {
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

    private static final String WILDCARD_V4 = "0.0.0.0";
    private static final String WILDCARD_V6 = "0:0:0:0:0:0:0:0";

    private static InetAddress wildcardAddress(boolean ipv6) {
        try {
            return InetAddress.getByAddress(new byte[ipv6 ? 16 : 4]);
        } catch (java.net.UnknownHostException impossibleForRawBytes) {
            throw new IllegalStateException(impossibleForRawBytes);
        }
    }

    private boolean portUsed(String hostIp, int port) {
        TreeSet<Integer> used = portsInUse.get(hostIp);
        return used != null && used.contains(port);
    }

    /** On the loopback machine: whether a bind of (ip or the wildcard, port) collides with another bind. */
    private boolean loopbackPortTaken(String ip, int port) {
        if (portUsed(WILDCARD_V4, port) || portUsed(WILDCARD_V6, port)) {
            return true;
        }
        if (ip.equals(WILDCARD_V4) || ip.equals(WILDCARD_V6)) {
            for (java.util.Map.Entry<String, TreeSet<Integer>> entry : portsInUse.entrySet()) {
                if (entry.getValue().contains(port)) {
                    return true;
                }
            }
            return false;
        }
        return portUsed(ip, port);
    }

    /** Binds a socket of the loopback machine: any loopback address, or the wildcard for all of them. */
    private void bindLoopback(SimSocket socket, InetAddress requested, int port, String subject) {
        boolean wildcard = requested.isAnyLocalAddress();
        if (!wildcard && !requested.isLoopbackAddress()) {
            throw new KernelException(Errno.EADDRNOTAVAIL, "bind", subject);
        }
        String ip = ip(requested);
        if (port == 0) {
            port = -1;
            for (int candidate = FIRST_EPHEMERAL_PORT; candidate <= LAST_EPHEMERAL_PORT; candidate++) {
                if (!loopbackPortTaken(ip, candidate)) {
                    port = candidate;
                    break;
                }
            }
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
        listeners.put(endpoint(ip, port), socket);
    }

    /** The listener a connect to (serverIp, port) reaches: a bound one, or a wildcard one of the loopback machine. */
    private SimSocket listenerFor(String serverIp, InetAddress serverAddress, int port) {
        SimSocket listener = listeners.get(endpoint(serverIp, port));
        if (listener == null && loopbackClaimed && serverAddress.isLoopbackAddress()) {
            listener = listeners.get(endpoint(WILDCARD_V4, port));
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
     * Resets every connection, as when the machine holding them loses power: both ends fail {@code ECONNRESET}
     * from now on. Recorded in the auditor.
     *
     * @return the number of connections reset
     */
    public int resetAll() {
        long now = clock.nowNanos();
        int count = 0;
        for (SimSocket socket : sockets.values()) {
            if (socket.peer != null && socket.state == SimSocket.State.CONNECTED && socket.resetAtNanos > now) {
                resetConnection(socket, now);
                count++;
            }
        }
        auditor.record("net.resetAll", Auditor.u32(count), Auditor.u64(now));
        return count;
    }

    private int ephemeralPort(String hostIp, String call, String subject) {
        return ephemeralPort(hostIp, false, call, subject);
    }

    private int ephemeralPort(String hostIp, boolean loopbackMachine, String call, String subject) {
        TreeSet<Integer> used = portsInUse.computeIfAbsent(hostIp, ignored -> new TreeSet<>());
        for (int port = FIRST_EPHEMERAL_PORT; port <= LAST_EPHEMERAL_PORT; port++) {
            if (!used.contains(port) && !(loopbackMachine && loopbackPortTaken(hostIp, port))) {
                return port;
            }
        }
        throw new KernelException(Errno.EADDRNOTAVAIL, call, subject);
    }

    private void claimPort(String hostIp, int port) {
        portsInUse.computeIfAbsent(hostIp, ignored -> new TreeSet<>()).add(port);
    }

    private void freePort(InetSocketAddress address) {
        TreeSet<Integer> used = portsInUse.get(address.getAddress().getHostAddress());
        if (used != null) {
            used.remove(address.getPort());
        }
    }

    /** Binds with {@code SO_REUSEADDR} and listens. */
    void bindAndListen(SimSocket socket, InetSocketAddress address, int backlog) {
        String subject = String.valueOf(address);
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
        } else if (portsInUse.getOrDefault(socket.hostIp, new TreeSet<>()).contains(port)) {
            throw new KernelException(Errno.EADDRINUSE, "bind", subject);
        }
        claimPort(socket.hostIp, port);
        socket.ownsPort = true;
        socket.local = new InetSocketAddress(socket.host, port);
        socket.state = SimSocket.State.LISTENING;
        listeners.put(endpoint(socket.hostIp, port), socket);
    }

    /** Starts a connect; the ring completes it with the outcome's result at the outcome's time. */
    ConnectOutcome connect(SimSocket client, InetSocketAddress remote) {
        long now = clock.nowNanos();
        switch (client.state) {
            case CONNECTED -> {
                return new ConnectOutcome(-EISCONN, now);
            }
            case LISTENING -> {
                return new ConnectOutcome(-Errno.EINVAL, now);
            }
            case CLOSED -> {
                return new ConnectOutcome(-Errno.EBADF, now);
            }
            case OPEN -> {
                // fall through to the attempt below
            }
        }
        if (client.local == null) {
            int port;
            try {
                port = ephemeralPort(client.hostIp, client.loopbackMachine, "connect", String.valueOf(remote));
            } catch (KernelException e) {
                return new ConnectOutcome(-e.errno(), now);
            }
            claimPort(client.hostIp, port);
            client.ownsPort = true;
            client.local = new InetSocketAddress(client.host, port);
        }
        InetAddress serverAddress = remote.getAddress().isAnyLocalAddress() ? client.host : remote.getAddress();
        String serverIp = ip(serverAddress);
        if (topology.isBlocked(direction(client.hostIp, serverIp))
                || topology.isBlocked(direction(serverIp, client.hostIp))) {
            return new ConnectOutcome(-Errno.ETIMEDOUT, now + config.connectTimeoutNanos());
        }
        long toServer = delay(client.hostIp, serverIp);
        long toClient = delay(serverIp, client.hostIp);
        SimSocket listener = listenerFor(serverIp, serverAddress, remote.getPort());
        if (listener == null || remote.getPort() == 0) {
            return new ConnectOutcome(-Errno.ECONNREFUSED, now + toServer + toClient);
        }
        // The server's end is the address the client dialled (a wildcard listener accepts on every address).
        InetAddress serverHost = listener.local.getAddress().isAnyLocalAddress() ? serverAddress : listener.host;
        SimSocket server = open(serverHost, listener.ipv6, listener.loopbackMachine);
        server.state = SimSocket.State.CONNECTED;
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
        return new ConnectOutcome(0, now + toServer + toClient);
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
        if (now >= socket.resetAtNanos) {
            return -Errno.ECONNRESET;
        }
        if (length == 0) {
            return 0;
        }
        int copied = 0;
        while (copied < length) {
            SimSocket.Segment head = socket.inbound.peekFirst();
            if (head == null || head.arrivalNanos > now) {
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
            if (head.consumed == head.data.length) {
                socket.inbound.removeFirst();
            }
        }
        return copied > 0 ? copied : -Errno.EAGAIN;
    }

    /**
     * Sends {@code length} bytes: queued for the peer, to arrive one link delay from now.
     *
     * @return {@code length}, or {@code -ECONNRESET}, {@code -EPIPE} (after {@code shutdownWrite}),
     *         {@code -ENOTCONN}
     */
    int send(SimSocket socket, byte[] source, int sourceOffset, int length) {
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
        if (generator.chance(Site.NETWORK_BREAK, config.breakRate())) {
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
        byte[] data = new byte[length];
        System.arraycopy(source, sourceOffset, data, 0, length);
        enqueue(socket, peer, data, now);
        return length;
    }

    private void enqueue(SimSocket from, SimSocket to, byte[] data, long now) {
        long arrival;
        SimSocket.Segment last = to.inbound.peekLast();
        if (topology.isBlocked(direction(from.hostIp, to.hostIp)) || (last != null && last.arrivalNanos == HELD)) {
            arrival = HELD;
        } else {
            arrival = Math.max(now + delay(from.hostIp, to.hostIp), to.lastArrivalNanos);
            to.lastArrivalNanos = arrival;
        }
        to.inbound.addLast(new SimSocket.Segment(data, arrival));
    }

    /** Shuts down the writing side: the peer receives end of stream after the data already sent. */
    void shutdownWrite(SimSocket socket) {
        if (socket.state != SimSocket.State.CONNECTED) {
            throw new KernelException(Errno.ENOTCONN, "shutdownWrite", String.valueOf(socket.local));
        }
        if (!socket.writeShutdown) {
            socket.writeShutdown = true;
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
        sockets.remove(socket.id);
    }

    /**
     * The number of sockets not yet closed, listeners included.
     *
     * @return the count
     */
    public int openSockets() {
        return sockets.size();
    }

    @Override
    public String toString() {
        return "SimNetwork(" + sockets.size() + " sockets, blocked=" + topology + ")";
    }
}
