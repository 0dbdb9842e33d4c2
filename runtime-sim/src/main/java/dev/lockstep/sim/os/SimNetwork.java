package dev.lockstep.sim.os;

import static dev.lockstep.sim.os.NetworkTopology.direction;
import static dev.lockstep.sim.os.NetworkTopology.ip;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.LinkProfile;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

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
 *   <li><b>Flow control.</b> A connection buffers at most {@value #SOCKET_BUFFER_BYTES} bytes per direction that
 *       the receiver has not received (send and receive buffers together, about what Linux loopback holds): a
 *       ring send hands over only what fits, and waits while nothing does, until the peer receives, closes or the
 *       connection is reset. Sends made outside the ring ({@code SimKernel.sendDirect}) are not bounded. A
 *       socket whose {@code SO_SNDBUF} or {@code SO_RCVBUF} is set bounds its direction by the sender's send
 *       buffer plus the receiver's receive buffer instead (half the default each), so a small buffer makes the
 *       sender wait sooner.</li>
 * </ul>
 *
 * <p>The socket-level calls are package-private: the kernel makes them, on behalf of fds. Not thread-safe: the
 * simulator uses it from its one thread.
 *
 * <h2>Layout</h2>
 * This class is the network's public face: its configuration, the topology and partitions (link delays and blocked
 * directions are kept by {@link NetworkTopology}; what a partition or a heal does to segments in flight is here),
 * and breaks. The socket state machine — every transition of a {@link SimSocket} and the tables of sockets,
 * listeners and ports they share — is {@link SocketStateMachine}'s; the kernel's socket calls go through here to
 * it.
 */
public final class SimNetwork {

    /** The first port handed out for port 0 and for unbound connecting sockets. */
    public static final int FIRST_EPHEMERAL_PORT = 32768;
    /** The last ephemeral port. */
    public static final int LAST_EPHEMERAL_PORT = 60999;
    /** Not in {@link Errno}: connect on a socket that is already connected. */
    static final int EISCONN = 106;
    /** The bytes a connection buffers per direction, sent and not yet received: see the model. */
    public static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private final Generator generator;
    private final Auditor auditor;
    private final SimClock clock;
    private NetworkConfig config;
    private final NetworkTopology topology = new NetworkTopology();
    private final SocketStateMachine machine;
    /**
     * How many calls that may change a socket's state this network has taken: every method but the queries counts
     * one, whether or not it changed anything. A ring's waiting receives and accepts are told of changes by their
     * sockets ({@link SimSocket#readinessChanged()}); with assertions enabled, a ring checks their times against a
     * fresh scan whenever this moved. The clock alone changes no socket's readiness.
     */
    private long changes;

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
        this.machine = new SocketStateMachine(this, topology, generator, auditor, clock);
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
        changes++;
        this.config = Objects.requireNonNull(config, "config");
    }

    /** The number of calls that may have changed a socket's state (see {@link #changes}). Simulator thread. */
    long changes() {
        return changes;
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
        changes++;
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
        changes++;
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
        changes++;
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
        changes++;
        String key = direction(ip(from), ip(to));
        if (!topology.block(key)) {
            return;
        }
        auditor.record("net.partition", Auditor.utf8(key), Auditor.u64(clock.nowNanos()));
        long now = clock.nowNanos();
        for (SimSocket socket : machine.sockets()) {
            if (socket.peer != null && receivesOver(socket, key)) {
                for (SimSocket.Segment segment : socket.inbound) {
                    if (segment.arrivalNanos > now) {
                        segment.arrivalNanos = SimSocket.HELD;
                    }
                }
                socket.readinessChanged();
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
        changes++;
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
        changes++;
        String key = direction(ip(from), ip(to));
        if (topology.unblock(key)) {
            auditor.record("net.heal", Auditor.utf8(key), Auditor.u64(clock.nowNanos()));
            releaseHeld(key);
        }
    }

    /** Restores every direction. */
    public void healAll() {
        changes++;
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
        for (SimSocket socket : machine.sockets()) {
            if (socket.peer == null || !receivesOver(socket, directionKey)) {
                continue;
            }
            long previous = Long.MIN_VALUE;
            for (SimSocket.Segment segment : socket.inbound) {
                if (segment.arrivalNanos == SimSocket.HELD) {
                    segment.arrivalNanos = Math.max(previous, now + delay(socket.peer.hostIp, socket.hostIp));
                }
                previous = segment.arrivalNanos;
            }
            socket.lastArrivalNanos = Math.max(socket.lastArrivalNanos, previous);
            socket.readinessChanged();
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
        changes++;
        for (SimSocket socket : machine.sockets()) {
            if (socket.peer != null && socket.state == SimSocket.State.CONNECTED && local.equals(socket.local)
                    && remote.equals(socket.remote)) {
                machine.resetConnection(socket, clock.nowNanos());
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
        changes++;
        String hostIp = ip(host);
        long now = clock.nowNanos();
        int count = 0;
        for (SimSocket socket : machine.sockets()) {
            if (socket.peer != null && socket.state == SimSocket.State.CONNECTED && socket.resetAtNanos > now
                    && (socket.hostIp.equals(hostIp) || socket.peer.hostIp.equals(hostIp))) {
                machine.resetConnection(socket, now);
                count++;
            }
        }
        return count;
    }


    /** One delivery delay over a link, jitter included: never negative. */
    private long delay(String fromIp, String toIp) {
        return topology.delay(fromIp, toIp, config.defaultLink(), generator);
    }

    // ---------------------------------------------------------------------------------------------- sockets

    /** The outcome of a connect, decided when it is issued. */
    record ConnectOutcome(int result, long completesAtNanos) {
    }


    /**
     * Resets every connection, as when the machine holding them loses power: both ends fail {@code ECONNRESET}
     * from now on. Recorded in the auditor.
     *
     * @return the number of connections reset
     */
    public int resetAll() {
        changes++;
        long now = clock.nowNanos();
        int count = 0;
        for (SimSocket socket : machine.sockets()) {
            if (socket.peer != null && socket.state == SimSocket.State.CONNECTED && socket.resetAtNanos > now) {
                machine.resetConnection(socket, now);
                count++;
            }
        }
        auditor.record("net.resetAll", Auditor.u32(count), Auditor.u64(now));
        return count;
    }

    // The socket calls the kernel makes on behalf of fds: see SocketStateMachine.

    SimSocket open(InetAddress host, boolean ipv6) {
        changes++;
        return machine.open(host, ipv6);
    }

    SimSocket open(InetAddress host, boolean ipv6, boolean loopbackMachine) {
        changes++;
        return machine.open(host, ipv6, loopbackMachine);
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
        changes++;
        machine.claimLoopback();
    }

    void bindAndListen(SimSocket socket, InetSocketAddress address, int backlog) {
        changes++;
        machine.bindAndListen(socket, address, backlog);
    }

    ConnectOutcome connect(SimSocket client, InetSocketAddress remote) {
        changes++;
        return machine.connect(client, remote);
    }

    void connectDelivered(SimSocket client) {
        changes++;
        machine.connectDelivered(client);
    }

    void connectCancelled(SimSocket client) {
        changes++;
        machine.connectCancelled(client);
    }

    long acceptableAtNanos(SimSocket listener) {
        return machine.acceptableAtNanos(listener);
    }

    SimSocket accept(SimSocket listener) {
        changes++;
        return machine.accept(listener);
    }

    long readableAtNanos(SimSocket socket) {
        return machine.readableAtNanos(socket);
    }

    int recv(SimSocket socket, java.lang.foreign.MemorySegment destination, int length) {
        changes++;
        return machine.recv(socket, destination, length);
    }

    int sendWindow(SimSocket socket) {
        return machine.sendWindow(socket);
    }

    long writableAtNanos(SimSocket socket) {
        return machine.writableAtNanos(socket);
    }

    int send(SimSocket socket, byte[] source, int sourceOffset, int length) {
        changes++;
        return machine.send(socket, source, sourceOffset, length, false);
    }

    /** {@link #send} of a whole array that nobody else holds or changes: queued for the peer without a copy. */
    int sendOwned(SimSocket socket, byte[] data) {
        changes++;
        return machine.send(socket, data, 0, data.length, true);
    }

    void shutdownWrite(SimSocket socket) {
        changes++;
        machine.shutdownWrite(socket);
    }

    void close(SimSocket socket) {
        changes++;
        machine.close(socket);
    }

    /**
     * The number of sockets not yet closed, listeners included.
     *
     * @return the count
     */
    public int openSockets() {
        return machine.sockets().size();
    }

    @Override
    public String toString() {
        return "SimNetwork(" + machine.sockets().size() + " sockets, blocked=" + topology + ")";
    }
}
