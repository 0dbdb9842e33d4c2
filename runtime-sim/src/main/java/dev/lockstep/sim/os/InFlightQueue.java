package dev.lockstep.sim.os;

import dev.lockstep.kernel.Opcode;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link SimRing}'s requests in flight by when each can complete: those whose time is known in one heap, those
 * that wait for the network (a receive, an accept, a send into full buffers) in another, worked out again only when
 * their socket tells them it changed. Draws nothing: the ring decides the order of what is due.
 *
 * <p>The simulator's thread only.
 */
final class InFlightQueue {
    private final SimKernel kernel;
    /** The ring's id, for messages. */
    private final long ringId;
    /** The requests in flight whose time is known (see {@link #add}), by that time. */
    private final RequestHeap dueHeap = new RequestHeap();
    /**
     * The requests in flight that wait for the network (a receive, an accept), by when each is ready as last worked
     * out. That changes only with the request's socket, which tells the request
     * ({@link SimSocket#readinessChanged()}): the request then goes on {@link #staleWaits}, and its time is worked
     * out again before this heap is next looked at. A change to one socket costs only the requests waiting for it.
     */
    private final RequestHeap waitingForNetwork = new RequestHeap();
    /**
     * Requests whose socket changed since their time in {@link #waitingForNetwork} was worked out (each with
     * {@code stale} set); it may also hold requests that left that heap since, which are skipped.
     */
    private final ArrayList<SimRequest> staleWaits = new ArrayList<>();

    /**
     * The network's change count when the times in {@link #waitingForNetwork} were last checked against a fresh
     * scan: only with assertions enabled ({@link #waitsAreCurrent()}).
     */
    private long checkedNetworkChanges = -1;

    InFlightQueue(SimKernel kernel, long ringId) {
        this.kernel = kernel;
        this.ringId = ringId;
    }

    /** The requests whose socket changed since their time was worked out: {@link SimRequest#readinessChanged}. */
    List<SimRequest> staleWaits() {
        return staleWaits;
    }

    /**
     * The earliest time a request in flight can complete, with every waiting time brought up to date first.
     *
     * @return epoch nanoseconds; {@code Long.MAX_VALUE} if nothing can complete (so far)
     */
    long nextEventNanos() {
        // When a receive or accept is ready changes only with its socket, not with the clock: only the waits whose
        // socket changed since are worked out again.
        if (!staleWaits.isEmpty()) {
            refreshStaleWaits();
        }
        assert waitsAreCurrent();
        return Math.min(dueHeap.earliestNanos(), waitingForNetwork.earliestNanos());
    }

    /**
     * Moves every request due by {@code now} out of the time heap into {@code due}, and adds the waits that are due,
     * which stay in their heap. After {@link #nextEventNanos}, which brought every waiting time up to date.
     *
     * @param now the current time
     * @param due where the due requests go
     */
    void collectDue(long now, List<SimRequest> due) {
        while (dueHeap.earliestNanos() <= now) {
            SimRequest first = dueHeap.first();
            due.add(first);
            dueHeap.remove(first);
        }
        waitingForNetwork.collectDue(now, due);
    }

    /**
     * Files a request in flight by how its time is known: a result decided already, or any request but a receive
     * or accept on a socket, is due at a fixed time ({@link #readyAtNanos}), kept in {@link #dueHeap}; a receive
     * or accept waits for the network and is kept in {@link #waitingForNetwork}. Called at submission and again
     * when a cancel decides the request's result.
     */
    void add(SimRequest request) {
        boolean waits = request.decidedResult == SimRing.STILL_PENDING
                && (request.opcode == Opcode.RECV || request.opcode == Opcode.ACCEPT || request.opcode == Opcode.SEND)
                && request.description instanceof SocketDescription;
        request.heapNanos = readyAtNanos(request);
        if (waits) {
            request.waitingForNetwork = true;
            request.stale = false; // its time is fresh; a stale entry left on staleWaits is skipped
            request.socket().addWaiter(request);
            waitingForNetwork.add(request);
        } else {
            dueHeap.add(request);
        }
    }

    /** Takes a request out of whichever of the two it is in. */
    void remove(SimRequest request) {
        if (request.waitingForNetwork) {
            request.waitingForNetwork = false;
            request.socket().removeWaiter(request);
            waitingForNetwork.remove(request);
        } else if (request.heapIndex >= 0) {
            dueHeap.remove(request);
        }
    }

    /** Works out again the time of every waiting request whose socket changed since (see {@link #staleWaits}). */
    private void refreshStaleWaits() {
        for (int i = 0; i < staleWaits.size(); i++) {
            SimRequest request = staleWaits.get(i);
            if (!request.stale) {
                continue;
            }
            request.stale = false;
            if (request.waitingForNetwork) {
                long ready = readyAtNanos(request);
                if (ready != request.heapNanos) {
                    request.heapNanos = ready;
                    waitingForNetwork.moved(request);
                }
            }
        }
        staleWaits.clear();
    }

    /**
     * Whether every waiting request's time is what a fresh scan gives, after {@link #refreshStaleWaits}: an
     * assertion's check that every change to a socket told its waiters. Scans only when the network changed since
     * the last check, so a test run pays about what the scan on every change used to cost.
     */
    private boolean waitsAreCurrent() {
        long changes = kernel.network().changes();
        if (changes == checkedNetworkChanges) {
            return true;
        }
        checkedNetworkChanges = changes;
        waitingForNetwork.forEach(request -> {
            long ready = readyAtNanos(request);
            if (ready != request.heapNanos) {
                throw new AssertionError("ring " + ringId + ": " + request.opcode + " userData=0x"
                        + Long.toHexString(request.userData) + " on " + request.socket() + " is ready at " + ready
                        + ", its wait says " + request.heapNanos + ": a change to the socket did not tell it");
            }
        });
        return true;
    }


    /**
     * When a request can complete: its decided time, or the later of its earliest time and when its socket is
     * ready for it.
     *
     * @param request a request in flight
     * @return epoch nanoseconds, {@code Long.MAX_VALUE} for never (so far)
     */
    long readyAtNanos(SimRequest request) {
        if (request.decidedResult != SimRing.STILL_PENDING) {
            return request.decidedAtNanos;
        }
        long waitingFor = switch (request.opcode) {
            case RECV -> request.description instanceof SocketDescription socket
                    ? kernel.network().readableAtNanos(socket.socket) : Long.MIN_VALUE;
            case ACCEPT -> request.description instanceof SocketDescription socket
                    ? kernel.network().acceptableAtNanos(socket.socket) : Long.MIN_VALUE;
            case SEND -> request.description instanceof SocketDescription socket
                    ? kernel.network().writableAtNanos(socket.socket) : Long.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
        return Math.max(request.earliestNanos, waitingFor);
    }
}
