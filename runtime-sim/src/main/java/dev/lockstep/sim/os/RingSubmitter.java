package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * What a {@link SimRing} decides when its {@code enter} submits a request: when it can complete (a latency from
 * {@link KernelBehavior}, or none for a request io_uring tries at once that the seed completes at submission), what
 * its fd names, the body of a blocking or path call run at once, a connect's round trip, and a cancellation with
 * its race against the target, as {@link SimRing}'s class doc describes them. Its draws
 * ({@link Site#INLINE_COMPLETION}, {@link Site#RING_LATENCY}, {@link Site#CANCEL_RACE},
 * {@link Site#CANCEL_RACE_RESULT}) come in an order that is part of every seed's schedule. The simulator's thread
 * only.
 */
final class RingSubmitter {
    private final SimKernel kernel;
    private final SimOpcodes opcodes;
    private final RingInFlight inFlight;

    RingSubmitter(SimKernel kernel, SimOpcodes opcodes, RingInFlight inFlight) {
        this.kernel = kernel;
        this.opcodes = opcodes;
        this.inFlight = inFlight;
    }

    private Generator generator() {
        return kernel.generator();
    }

    /**
     * Whether io_uring would first try {@code request} at once, without waiting (see
     * {@link KernelBehavior#inlineCompletionRate()}): a send or receive on a socket, a read or write of a file
     * opened without {@code O_DIRECT}; not a write with {@code RWF_DSYNC}, which waits for the device.
     *
     * @param description what the request's fd names now, or null
     */
    private static boolean triedAtOnce(SimRequest request, Description description) {
        return switch (request.opcode) {
            case SEND, RECV -> description instanceof SocketDescription;
            case READ -> description instanceof FileDescription file && !file.direct;
            case WRITE -> (request.rwFlags & Submission.RWF_DSYNC) == 0
                    && description instanceof FileDescription file && !file.direct;
            default -> false;
        };
    }

    /** Submits a request: decides its time (and its result, where that is decided now) and puts it in flight. */
    void submit(SimRequest request) {
        long now = kernel.clock().nowNanos();
        request.submittedAtNanos = now;
        // What the fd names, looked up once: nothing between here and its use below changes the fd table (an
        // offloaded call, which could, runs only for requests that never use it).
        Description description = kernel.fds().description(request.fd);
        KernelBehavior behavior = kernel.behavior();
        long minLatency = behavior.minLatencyNanos();
        long maxLatency = behavior.maxLatencyNanos();
        if (request.opcode == Opcode.FSYNC && description instanceof FileDescription file
                && file.handle.isDirectory()) {
            // A directory's fsync is a journal commit, as slow through the ring as the synchronous call.
            minLatency = behavior.minSyncCallLatencyNanos();
            maxLatency = behavior.maxSyncCallLatencyNanos();
        }
        long latency = triedAtOnce(request, description)
                && generator().chance(Site.INLINE_COMPLETION, behavior.inlineCompletionRate()) ? 0
                : generator().nextLongBetween(Site.RING_LATENCY, minLatency, maxLatency);
        request.earliestNanos = now + latency;
        inFlight.add(request);
        if (request.decidedAtSubmission()) {
            // The calls run now, off every worker: each one's latency is charged to this request's completion,
            // not to the clock, as an offload thread of runtime-uring (or, for a path request, Linux's io-wq
            // thread) leaves its worker running meanwhile.
            SyscallLatency.Offloaded outcome = kernel.syscallLatency().runOffloaded(
                    request.isPath() ? opcodes.pathCall(request) : Objects.requireNonNull(request.call, "call"));
            request.earliestNanos += outcome.chargedNanos();
            request.decide(outcome.result(), request.earliestNanos);
        } else if (request.opcode != Opcode.NOP && !request.isCancel()) {
            request.description = description;
            if (request.description == null) {
                request.decide(-Errno.EBADF, request.earliestNanos);
            } else {
                request.description.retainForRequest();
            }
        }
        if (request.decidedResult == SimRing.STILL_PENDING) {
            switch (request.opcode) {
                case ASYNC_CANCEL -> cancel(request);
                case CONNECT -> connect(request);
                default -> {
                    // Decided at delivery.
                }
            }
        }
        inFlight.queue().add(request);
    }

    private void connect(SimRequest request) {
        if (!(request.description instanceof SocketDescription socket)) {
            request.decide(-Errno.ENOTSOCK, request.earliestNanos);
            return;
        }
        InetSocketAddress address = request.length < 0 ? null
                : SimSystemCalls.decodeSockaddr(request.buffer, request.length);
        if (address == null) {
            request.decide(-Errno.EINVAL, request.earliestNanos);
            return;
        }
        SimNetwork.ConnectOutcome outcome = kernel.network().connect(socket.socket, address);
        request.decide(outcome.result(), Math.max(request.earliestNanos, outcome.completesAtNanos()));
    }

    private void cancel(SimRequest cancel) {
        SimRequest target = null;
        boolean onlyCancelledMatches = false;
        for (SimRequest candidate : inFlight.inSubmissionOrder()) {
            if (candidate.isCancel() || candidate.userData != cancel.target) {
                continue;
            }
            if (candidate.cancelled) {
                onlyCancelledMatches = true;
                continue;
            }
            target = candidate;
            break;
        }
        if (target == null) {
            cancel.decide(onlyCancelledMatches ? -Errno.EALREADY : -Errno.ENOENT, cancel.earliestNanos);
            return;
        }
        InFlightQueue queue = inFlight.queue();
        if (queue.readyAtNanos(target) <= kernel.clock().nowNanos()) {
            // Its result is due: a real kernel completed it already and its completion is on the way.
            cancel.decide(-Errno.ENOENT, cancel.earliestNanos);
            return;
        }
        boolean running = switch (target.opcode) {
            case READ, WRITE, FSYNC, FTRUNCATE, FALLOCATE, NOP -> true;
            // A send waiting for room in full buffers is not running: a cancel always takes it, as on Linux.
            case SEND -> !(target.description instanceof SocketDescription socket)
                    || kernel.network().sendWindow(socket.socket) > 0;
            default -> false;
        };
        // Roll whether or not the target is running, so the draw count does not depend on the opcode. A blocking
        // call or a path call always wins against a cancel: it has run already and runs to its end.
        boolean raceLost = generator().chance(Site.CANCEL_RACE, kernel.behavior().cancelRaceRate()) && running
                || target.decidedAtSubmission();
        if (raceLost) {
            int cancelResult = generator().nextInt(Site.CANCEL_RACE_RESULT, 2) == 0 ? 0 : -Errno.EALREADY;
            cancel.decide(cancelResult, cancel.earliestNanos);
            return;
        }
        target.cancelled = true;
        queue.remove(target);
        target.decide(-Errno.ECANCELED, cancel.earliestNanos);
        queue.add(target);
        if (target.opcode == Opcode.CONNECT
                && target.description instanceof SocketDescription socket) {
            kernel.network().connectCancelled(socket.socket);
        }
        cancel.decide(0, cancel.earliestNanos);
    }
}
