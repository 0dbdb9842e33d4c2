package dev.lockstep.sim.os;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link SimRing}'s requests from the {@code enter} that submits them to the one that delivers their completion:
 * in submission order (the order of their sequence), by when each can complete ({@link InFlightQueue}), and the
 * counts of cancellations and storage requests among them that the ring's capacity rules read. A request keeps
 * what its fd named ({@link Description}) alive while it is here. The simulator's thread only.
 */
final class RingInFlight {
    private final SimKernel kernel;
    private final long ringId;
    /** Requests submitted and not yet delivered, in submission order, which is the order of their sequence. */
    private final List<SimRequest> requests = new ArrayList<>();
    /** The same requests by when each can complete. */
    private final InFlightQueue queue;
    private int cancels;
    /** Storage requests ({@link SimRequest#isStorage}) in flight: bounded with the staged ones by the entries. */
    private int storage;

    RingInFlight(SimKernel kernel, long ringId) {
        this.kernel = kernel;
        this.ringId = ringId;
        this.queue = new InFlightQueue(kernel, ringId);
    }

    /** The requests by when each can complete. */
    InFlightQueue queue() {
        return queue;
    }

    /** The requests in submission order; read only. */
    List<SimRequest> inSubmissionOrder() {
        return requests;
    }

    int size() {
        return requests.size();
    }

    int cancels() {
        return cancels;
    }

    int storage() {
        return storage;
    }

    /**
     * Counts a request just submitted, its sequence above every other's; a sync tells the kernel. It enters the
     * {@link #queue()} once its time is decided.
     */
    void add(SimRequest request) {
        assert requests.isEmpty() || requests.getLast().sequence < request.sequence : "request " + request.sequence
                + " submitted after " + requests.getLast().sequence + " on ring " + ringId;
        requests.add(request);
        if (request.isCancel()) {
            cancels++;
        } else if (request.isStorage()) {
            storage++;
            if (request.isSync()) {
                kernel.syncSubmitted();
            }
        }
    }

    /** Takes a delivered request out; releases what its fd named. */
    void retire(SimRequest request) {
        queue.remove(request);
        // In sequence order: found by binary search instead of a scan.
        int low = 0;
        int high = requests.size() - 1;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (requests.get(middle).sequence < request.sequence) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        if (requests.get(low) != request) {
            throw new IllegalStateException("request " + request.sequence + " is not in flight on ring " + ringId);
        }
        requests.remove(low);
        if (request.isCancel()) {
            cancels--;
        } else if (request.isStorage()) {
            storage--;
            if (request.isSync()) {
                kernel.syncRetired();
            }
        }
        assert cancels >= 0 && storage >= 0 : "ring " + ringId + " counts " + cancels + " cancellations and "
                + storage + " storage requests in flight";
        if (request.description != null) {
            request.description.releaseForRequest();
        }
    }

    /**
     * Refuses to free memory a request in flight may still use.
     *
     * @throws IllegalStateException naming the request, if {@code segment} is the buffer of one
     */
    void checkNotInFlight(MemorySegment segment) {
        for (SimRequest request : requests) {
            if (request.buffer.isNative() && request.buffer.address() == segment.address()) {
                throw new IllegalStateException("SimRing.free: memory freed while request " + request.opcode
                        + " userData=0x" + Long.toHexString(request.userData) + " on ring " + ringId
                        + " is in flight and may use it");
            }
        }
    }

    /** One line per request, in submission order: opcode, fd, user data, and when it can complete. */
    List<String> describe() {
        List<String> descriptions = new ArrayList<>();
        for (SimRequest request : requests) {
            long ready = queue.readyAtNanos(request);
            descriptions.add(request.opcode + "(fd=" + request.fd + ", userData=0x" + Long.toHexString(request.userData)
                    + (request.cancelled ? ", cancelled" : "") + ", ready "
                    + (ready == Long.MAX_VALUE ? "never" : "at " + ready) + ")");
        }
        return descriptions;
    }
}
