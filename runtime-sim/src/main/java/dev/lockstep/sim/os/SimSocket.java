package dev.lockstep.sim.os;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one simulated socket, one end of a connection or a listener: what {@link SimNetwork}'s socket
 * state machine moves through ({@link State}), its accept queue, and the segments sent to it, arrived or still
 * in flight. The kernel maps fds to sockets; {@link SimNetwork} makes every transition. Not thread-safe.
 */
final class SimSocket {

    enum State {
        /** Created, maybe with a local port from a failed connect; neither listening nor connected. */
        OPEN,
        LISTENING,
        CONNECTED,
        CLOSED
    }

    /** A segment's arrival time while a partition holds it. */
    static final long HELD = Long.MAX_VALUE;

    /** A segment of a byte stream, or the FIN that ends it. */
    static final class Segment {
        final byte[] data;
        int consumed;
        long arrivalNanos;

        Segment(byte[] data, long arrivalNanos) {
            this.data = data;
            this.arrivalNanos = arrivalNanos;
        }

        boolean isFin() {
            return data == null;
        }
    }

    /** A connection waiting in a listener's accept queue. */
    record PendingAccept(SimSocket serverEnd, long readyNanos) {
    }

    final long id;
    String hostIp;
    InetAddress host;
    final boolean ipv6;
    /** Created by the kernel that owns the whole loopback range: it may bind any loopback address. */
    final boolean loopbackMachine;
    State state = State.OPEN;
    InetSocketAddress local;
    InetSocketAddress remote;
    /** For a listener: connections not yet accepted, in connect order. */
    final List<PendingAccept> acceptQueue = new ArrayList<>();
    /** For a connection: the other end. */
    SimSocket peer;
    /** For a connection: segments sent to this end, in order, arrived or not. */
    final ArrayDeque<Segment> inbound = new ArrayDeque<>();
    /** The arrival time of the last segment sent to this end: later ones may not arrive earlier. */
    long lastArrivalNanos = Long.MIN_VALUE;
    /** From this time on, every receive and send fails ECONNRESET. */
    long resetAtNanos = Long.MAX_VALUE;
    boolean writeShutdown;
    /** For a connection: bytes sent to this end and not yet received, arrived or in flight. */
    long unreadBytes;
    /**
     * {@code SO_SNDBUF} and {@code SO_RCVBUF}: what this end may hold of its sends, and of what it has not received.
     * Half of {@link SimNetwork#SOCKET_BUFFER_BYTES} each by default, so a direction's flow control bound is that
     * constant unless a size is set; a socket accepted on a listener takes the listener's.
     */
    int sendBufferBytes = SimNetwork.SOCKET_BUFFER_BYTES / 2;
    int receiveBufferBytes = SimNetwork.SOCKET_BUFFER_BYTES / 2;
    /** Whether this socket claimed its local port (a listener, or a client's ephemeral port). */
    boolean ownsPort;
    /** The connection of a connect in progress, to reset if the connect is cancelled. */
    boolean connectInProgress;
    /**
     * For a connection a cluster node accepted: that node's lifetime, told when a peer receives what it answered
     * ({@link SimNode.IoBoundary#ANSWERED}); null for every other socket.
     */
    IoBoundaryListener acceptedBy;
    /** For a connection a cluster node accepted: whether the node has received bytes on it, a request. */
    boolean requestReceived;

    SimSocket(long id, InetAddress host, boolean ipv6, boolean loopbackMachine) {
        this.id = id;
        this.host = host;
        this.hostIp = host.getHostAddress();
        this.ipv6 = ipv6;
        this.loopbackMachine = loopbackMachine;
    }

    /** The hosts {@link #cachedDirection} was made for, compared by identity. */
    private String cachedFromIp;
    private String cachedToIp;
    private String cachedDirection;

    /**
     * {@link NetworkTopology#direction} from this socket's host to {@code to}'s, made once for as long as neither
     * host changes: every segment sent asks for it.
     */
    String directionTo(SimSocket to) {
        if (cachedFromIp != hostIp || cachedToIp != to.hostIp) {
            cachedFromIp = hostIp;
            cachedToIp = to.hostIp;
            cachedDirection = NetworkTopology.direction(hostIp, to.hostIp);
        }
        return cachedDirection;
    }

    /** Resets this end at {@code atNanos}, unless it was reset earlier. */
    void resetAt(long atNanos) {
        if (atNanos < resetAtNanos) {
            resetAtNanos = atNanos;
            readinessChanged();
        }
    }

    /** A ring request waiting for this socket: a receive, or an accept on a listener. */
    interface Waiter {
        /** What the socket's readiness depends on changed: its time must be worked out again. */
        void readinessChanged();
    }

    /** The requests waiting for this socket now, in no particular order; usually one or none. */
    private final ArrayList<Waiter> waiters = new ArrayList<>(2);

    void addWaiter(Waiter waiter) {
        waiters.add(waiter);
    }

    void removeWaiter(Waiter waiter) {
        waiters.remove(waiter);
    }

    /**
     * Tells the waiters that something {@link SocketStateMachine#readableAtNanos} or
     * {@link SocketStateMachine#acceptableAtNanos} reads changed: the state, the inbound queue's head or its
     * arrival time, the reset time or the accept queue. Every such change calls this; a waiter only notes it
     * (the socket may be half-way through a transition) and works its time out when next asked.
     */
    void readinessChanged() {
        for (int i = 0; i < waiters.size(); i++) {
            waiters.get(i).readinessChanged();
        }
    }

    @Override
    public String toString() {
        return "Socket#" + id + "(" + state + ", " + local + " -> " + remote + ")";
    }
}
