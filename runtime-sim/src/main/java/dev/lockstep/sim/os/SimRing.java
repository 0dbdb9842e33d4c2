package dev.lockstep.sim.os;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.audit.AuditKind;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A simulated io_uring: a bounded queue of submissions whose completions the simulator times and orders.
 *
 * <h2>Capacity</h2>
 * A request is <em>in flight</em> from the {@link #enter} that submits it until the {@link #enter} that
 * delivers its completion. {@link #stage} refuses (returns false) a request, meaning any opcode but
 * {@link Opcode#ASYNC_CANCEL}, when {@link #entries()} requests are staged and not yet submitted (a full
 * submission queue, as a real ring's), and also when it is a storage request (anything but a receive, accept,
 * send or connect) and the storage requests staged plus in flight reach {@link #entries()}; it refuses a
 * cancellation when the cancellations staged plus in flight reach {@link #entries()}. The last two are stricter
 * than a real ring on purpose: they enforce the engine's promise in {@link Ring}, so breaking it shows up here as
 * a refused stage. Receives, accepts, sends and connects in flight are not bounded, as the engine does not bound
 * them; a real kernel keeps their completions beyond its completion queue in its overflow backlog, which this
 * ring, delivering straight to the sink, needs no model of. On a ring below 4 entries every request counts
 * against {@link #entries()}, staged or in flight, as the engine shares such a ring among all its requests.
 *
 * <h2>Time</h2>
 * {@link #enter} never blocks, whatever {@code wait} and {@code timeoutNanos} say: the scheduler owns time. Each
 * submitted request draws a latency from {@link KernelBehavior}'s range — or none, for a request io_uring tries at
 * once (a send, a receive, a buffered read or write) that the seed says completes at submission
 * ({@link KernelBehavior#inlineCompletionRate()}): it is then delivered by the enter that submitted it; it is due
 * when the clock reaches submission time plus latency, and a receive or accept also only once its data or
 * connection has arrived, a connect once its round trip is over. A read may also be asked at the call, without the
 * ring ({@link #readWithoutWaiting}). {@link #nextEventNanos()} says when the next one is due, so the
 * scheduler can jump the clock there.
 *
 * <h2>Delivery</h2>
 * {@link #enter} first submits every staged entry, in staging order, then delivers every due completion, in a
 * seeded order ({@link Site#COMPLETION_ORDER}): completions that are due at the same {@code enter} may arrive in
 * any order, as they may from a real kernel. A request's effect happens when its completion is delivered: data
 * is copied out of (writes, sends) or into (reads, receives) its buffer then, as a kernel does when it runs the
 * request, and the file system or network is consulted then. A receive that finds nothing (another receive took
 * the data first) stays in flight.
 *
 * <h2>Blocking calls</h2>
 * A {@link Opcode#BLOCKING_CALL} runs its body when it is submitted, with the latency of the system calls inside
 * summed into its completion time rather than moving the clock ({@link SyscallLatency#runOffloaded}); its completion
 * is then delivered like any other, in the seeded order. A cancel never stops it. The path requests
 * ({@link Opcode#OPENAT}, {@link Opcode#MKDIRAT}, {@link Opcode#UNLINKAT}, {@link Opcode#RENAMEAT}) run the same
 * way, each its one call:
 * Linux runs them on its own worker threads, never on the submitting one. {@link Opcode#FTRUNCATE},
 * {@link Opcode#FALLOCATE} and {@link Opcode#STATX} are file requests like a write: they take effect at delivery.
 *
 * <h2>Results a real kernel produces, at configurable rates</h2>
 * Short reads and receives, short writes and sends (between 1 and length - 1 bytes, never 0 unless at end of
 * file or stream), spurious {@code -EAGAIN} and {@code -EINTR} on reads, writes, receives and sends, and the
 * cancellation race below. File requests go through the {@link SimFileSystem} and its injected faults.
 *
 * <h2>Cancellation</h2>
 * {@link Opcode#ASYNC_CANCEL} is processed when it is submitted. Its target is the oldest request in flight
 * (cancellations excluded) whose user data equals {@link Submission#target}:
 * <ul>
 *   <li>none: the cancel completes {@code -ENOENT} (the target completed and was delivered already, or never
 *       existed);</li>
 *   <li>a target already cancelled: {@code -EALREADY};</li>
 *   <li>a target whose result is due already (its time has come, its completion not yet delivered): a real
 *       kernel completed it already, so the cancel completes {@code -ENOENT} and the target with its real
 *       result;</li>
 *   <li>a target that is running, meaning a file request, a send or a {@code NOP} (a kernel runs those at once
 *       or on a worker thread): with {@link KernelBehavior#cancelRaceRate()} the cancel loses the race: the
 *       target completes with its real result at its own time, and the cancel with 0 or {@code -EALREADY}
 *       (seeded; a real kernel reports either);</li>
 *   <li>otherwise the cancel wins: the target completes {@code -ECANCELED} and the cancel 0, both one
 *       latency after the cancel was submitted. A cancelled request has no effect (a cancelled connect resets
 *       the half-open connection).</li>
 * </ul>
 *
 * <h2>Memory and buffers</h2>
 * One rule on both runtimes: the kernel works on native memory only. {@link #allocate} returns zeroed native
 * memory ({@code calloc}), as {@code UringRing} does, and {@link #stage} refuses what
 * {@link Submission#validate()} refuses, with the same {@link IllegalArgumentException} on both runtimes: a buffer
 * that is not native, a length that is negative or longer than the buffer, a negative file offset of a read or
 * write, and the rest listed there. {@link #free} takes memory allocated
 * by any ring of this kernel (as io_uring's rings share one C heap) and checks that it is a live allocation and
 * not the buffer of a request in flight: freeing memory the kernel may still write is an engine bug, reported
 * here as an {@link IllegalStateException}. Memory never freed is a leak the kernel reports
 * ({@link SimKernel#heldResources()}).
 *
 * <h2>Auditing</h2>
 * Every call ({@code stage}, {@code enter}, {@code nowNanos}, {@code allocate}, {@code free}, {@code wake}
 * excepted since it may come from any thread) and every submission and completion is recorded in the auditor,
 * completions with the bytes transferred; a {@code nowNanos} that returns what this ring's last recorded one did is
 * not (see {@link #nowNanos} for why that loses nothing).
 *
 * <p>Owned by one worker; confined to the simulator thread except {@link #wake()}.
 *
 * <h2>Parts</h2>
 * This class keeps the SPI calls, staging with its capacity rules, and the delivery of what is due. A staged
 * submission becomes a {@link SimRequest}; what is decided when an {@code enter} submits it (its time, a blocking
 * or path call, a connect, a cancellation's race) is {@link RingSubmitter}'s; requests in flight are a
 * {@link RingInFlight}, in submission order and by time in an {@link InFlightQueue} (two {@link RequestHeap}s: due
 * at a known time, or waiting for the network); what each opcode does when performed is {@link SimOpcodes}; the
 * receive buffers the ring selects are {@link SimProvidedBuffers}. Their
 * draws come from one generator stream in an order that is part of every seed's schedule.
 */
public final class SimRing implements Ring {

    /** The result of performing a request that must stay in flight (a receive that found nothing yet). */
    static final int STILL_PENDING = Integer.MIN_VALUE;

    private final SimKernel kernel;
    private final SimOpcodes opcodes;
    private final RingInFlight inFlight;
    private final RingSubmitter submitter;
    private final long id;
    private final int entries;
    private List<SimRequest> staged = new ArrayList<>();
    /** The list {@link #enter} submits from while {@link #staged} takes new entries; empty between enters. */
    private List<SimRequest> submitting = new ArrayList<>();
    /** The due requests of an {@link #enter}, kept to be reused; null while an enter uses it. */
    private ArrayList<SimRequest> dueScratch = new ArrayList<>();
    private int stagedCancels;
    /** Storage requests ({@link SimRequest#isStorage}) staged: bounded by {@link #entries} with those in flight. */
    private int stagedStorage;
    private long nextSequence;
    private volatile boolean wakeRequested;
    /** The value of this ring's last audited clock read (see {@link #nowNanos}); none yet at first. */
    private long lastReadNanos = Long.MIN_VALUE;
    private boolean closed;
    /** The receive buffers this ring selects ({@link #selectedBufferBytes()}). */
    private final SimProvidedBuffers provided = new SimProvidedBuffers();

    SimRing(SimKernel kernel, long id, int entries) {
        this.kernel = kernel;
        this.opcodes = new SimOpcodes(kernel);
        this.inFlight = new RingInFlight(kernel, id);
        this.submitter = new RingSubmitter(kernel, opcodes, inFlight);
        this.id = id;
        this.entries = entries;
    }

    /** The requests in flight by time, for a request told its socket changed ({@link SimRequest}). */
    InFlightQueue inFlightQueue() {
        return inFlight.queue();
    }

    /**
     * This ring's number within its kernel, from 1 in opening order.
     *
     * @return the id
     */
    public long id() {
        return id;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("SimRing " + id + " is closed");
        }
    }

    private SimClock clock() {
        return kernel.clock();
    }

    /** The kernel this ring belongs to. */
    public SimKernel kernel() {
        return kernel;
    }

    private Auditor auditor() {
        return kernel.auditor();
    }

    private Generator generator() {
        return kernel.generator();
    }

    // -------------------------------------------------------------------------------------------------- Ring

    /**
     * The number of entries: the bound on requests in flight, and separately on cancellations in flight.
     *
     * @return the entries given to {@link SimKernel#openRing}
     */
    @Override
    public int entries() {
        return entries;
    }

    /**
     * Copies a submission into the queue; see the class doc for when it is refused.
     *
     * @param submission the request; not referenced afterwards (its buffer is, until completion)
     * @return false if the ring is at capacity for this kind of entry
     * @throws IllegalArgumentException what {@link Submission#validateFor(int)} refuses, as on runtime-uring, and a
     *     {@code WRITE} marked {@link Submission#BUFFERED_FILE} whose fd is not a file opened without
     *     {@code O_DIRECT} (runtime-uring trusts the mark and writes such a request with {@code pwrite} at once)
     */
    @Override
    public boolean stage(Submission submission) {
        checkOpen();
        Objects.requireNonNull(submission, "submission");
        submission.validateFor(selectedBufferBytes());
        checkBufferedFileMark(submission);
        SimRequest request = new SimRequest(this, nextSequence, submission);
        boolean cancel = request.isCancel();
        boolean storage = request.isStorage();
        boolean refused;
        if (cancel) {
            refused = stagedCancels + inFlight.cancels() >= entries;
        } else if (entries < dev.lockstep.engine.request.Driver.SMALLEST_UNSHARED_RING) {
            refused = staged.size() - stagedCancels + inFlight.size() - inFlight.cancels() >= entries;
        } else {
            refused = staged.size() - stagedCancels >= entries
                    || (storage && stagedStorage + inFlight.storage() >= entries);
        }
        if (refused) {
            auditor().record("ring.stageRefused", Auditor.u64(id), Auditor.utf8(request.opcode.name()),
                    Auditor.u64(request.userData));
            return false;
        }
        nextSequence++;
        noteBuffer(submission);
        staged.add(request);
        if (cancel) {
            stagedCancels++;
        } else if (storage) {
            stagedStorage++;
        }
        // A fallocate's second long, its range, takes the place of a cancel's target: no opcode has both. A write's
        // BUFFERED_FILE is a hint for runtime-uring that changes nothing here, so it is not audited; nor is a
        // statx's TYPE, whose answer is the same for every file this kernel reaches (a regular file).
        int auditedFlags = switch (request.opcode) {
            case WRITE -> request.flags & ~Submission.BUFFERED_FILE;
            case STATX -> request.flags & ~dev.lockstep.kernel.Statx.TYPE;
            default -> request.flags;
        };
        auditor().recordRingStage(id, request.sequence, OPCODE_NAMES[request.opcode.ordinal()], request.fd,
                request.offset, request.length, request.rwFlags, auditedFlags, request.userData,
                request.opcode == Opcode.FALLOCATE ? request.rangeLength : request.target);
        return true;
    }

    /**
     * The mark runtime-uring trusts, checked where the simulated kernel knows the fd: a write marked
     * {@link Submission#BUFFERED_FILE} must name a regular file opened without {@code O_DIRECT}. A closed or unknown fd is
     * left to the write itself, which fails with {@code EBADF} as it would unmarked.
     */
    private void checkBufferedFileMark(Submission submission) {
        if (submission.opcode != Opcode.WRITE || (submission.flags & Submission.BUFFERED_FILE) == 0) {
            return;
        }
        Description description = kernel.fds().description(submission.fd);
        if (description == null) {
            return;
        }
        String unlike = !(description instanceof FileDescription file) ? "not a file"
                : file.handle.isDirectory() ? "a directory"
                : file.direct ? "a file opened O_DIRECT" : null;
        if (unlike != null) {
            throw new IllegalArgumentException("a WRITE marked BUFFERED_FILE on fd " + submission.fd + ", which is "
                    + unlike + ": " + submission);
        }
    }

    /** Stages a checked submission's buffer use in the kernel's allocation records (see {@link #stage}). */
    private void noteBuffer(Submission submission) {
        if (submission.buffer != null && submission.buffer.isNative()) {
            kernel.memory().stagedWith(submission.buffer, submission.opcode, submission.fd,
                    kernel.fds().description(submission.fd));
        }
    }

    /**
     * Submits every staged entry, then delivers every due completion in a seeded order. Never blocks; see the
     * class doc.
     *
     * @param wait ignored: the simulator never waits (recorded)
     * @param timeoutNanos ignored likewise (recorded)
     * @param sink receives the completions; it may stage new entries, which the next {@code enter} submits
     * @return the number of completions delivered
     */
    @Override
    public int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
        checkOpen();
        Objects.requireNonNull(sink, "sink");
        auditor().recordRingEnter(id, wait ? 1 : 0, timeoutNanos, clock().nowNanos(), staged.size());
        wakeRequested = false;
        if (!staged.isEmpty()) {
            // The staged list is swapped for the empty one rather than copied: anything staged meanwhile goes to
            // the next enter, as before.
            List<SimRequest> batch = staged;
            staged = submitting;
            submitting = batch;
            stagedCancels = 0;
            stagedStorage = 0;
            for (SimRequest request : batch) {
                submitter.submit(request);
                auditor().recordRingSubmit(id, request.sequence, request.earliestNanos, request.decidedResult);
            }
            batch.clear();
            assert inFlight.cancels() <= entries
                    && (entries < dev.lockstep.engine.request.Driver.SMALLEST_UNSHARED_RING
                    ? inFlight.size() - inFlight.cancels() <= entries : inFlight.storage() <= entries)
                    : "ring " + id + " of " + entries + " entries has " + inFlight.size() + " requests in flight, "
                    + inFlight.cancels() + " cancellations and " + inFlight.storage() + " storage";
        }
        long now = clock().nowNanos();
        if (nextEventNanos() > now) {
            return 0; // nothing due: the shuffle of nothing draws nothing (Generator.shuffle), so the run is the same
        }
        ArrayList<SimRequest> due = dueScratch != null ? dueScratch : new ArrayList<>();
        dueScratch = null;
        InFlightQueue queue = inFlight.queue();
        queue.collectDue(now, due);
        // In submission order, as the scan of every request in flight found them, before the seeded shuffle.
        due.sort(BY_SEQUENCE);
        generator().shuffle(Site.COMPLETION_ORDER, due);
        int delivered = 0;
        for (int i = 0; i < due.size(); i++) {
            SimRequest request = due.get(i);
            int result = opcodes.perform(request);
            if (result == STILL_PENDING) {
                if (!request.waitingForNetwork) {
                    queue.add(request); // only a wait for the network is ever still pending; kept in flight all the same
                }
                continue;
            }
            inFlight.retire(request);
            int selected = request.selectedBuffer;
            auditor().recordRingComplete(id, request.sequence, OPCODE_NAMES[request.opcode.ordinal()],
                    request.userData, result, now, selected < 0 ? request.buffer : provided.buffer(selected),
                    transferredBytes(request, result), request.movedUnchanging);
            delivered++;
            kernel.ringCompletions++;
            sink.complete(request.userData, result, selected < 0 ? 0 : SimProvidedBuffers.completionFlags(selected));
        }
        due.clear();
        dueScratch = due;
        return delivered;
    }

    private static final java.util.Comparator<SimRequest> BY_SEQUENCE = (a, b) -> Long.compare(a.sequence, b.sequence);


    /**
     * {@inheritDoc}
     *
     * <p>Always {@value SimProvidedBuffers#BUFFER_BYTES}, as runtime-uring's rings on a kernel that has them: see
     * {@link SimProvidedBuffers}. Not recorded: a constant.
     */
    @Override
    public int selectedBufferBytes() {
        return SimProvidedBuffers.BUFFER_BYTES;
    }

    @Override
    public MemorySegment selectedBuffer(int completionFlags) {
        checkOpen();
        return provided.buffer(provided.idOf(completionFlags));
    }

    @Override
    public void returnSelected(int completionFlags) {
        checkOpen();
        provided.give(provided.idOf(completionFlags));
    }

    /** The receive buffers of this ring, for its requests. */
    SimProvidedBuffers providedBuffers() {
        return provided;
    }

    /**
     * Receive buffers this ring lent and the engine has not given back; for tests.
     *
     * @return buffers out
     */
    int selectedBuffersLent() {
        return provided.lent();
    }

    /**
     * Flags a wake-up. Since {@link #enter} never blocks there is nothing to interrupt; the flag tells the
     * scheduler the worker asked to be serviced. Any thread.
     */
    @Override
    public void wake() {
        wakeRequested = true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A cluster node's wall clock, steps included; the simulation's time otherwise. Not recorded: it is a
     * function of the recorded clock read and of the node's recorded steps and drifts.
     */
    @Override
    public long wallNanos(long nowNanos) {
        return kernel.wallNanos();
    }

    /**
     * The simulated time: the simulation's clock, or the monotonic clock of the cluster node this ring's kernel is.
     *
     * @return {@link SimClock#nowNanos()}, or the node's monotonic time
     */
    @Override
    public long measureNanos() {
        // The clock as nowNanos reads it, without the audit record: a measurement (a sync's latency for the
        // metrics) must leave the chain, and so the digest, as it was.
        return kernel.localNanos();
    }

    @Override
    public long nowNanos() {
        long now = kernel.localNanos();
        if (now != lastReadNanos) {
            // A read that repeats this ring's last one is not an event: reading the clock changes nothing in the
            // simulation (no draw, no state), and what it returned is in the chain already, so the only thing
            // left out is that the code read the clock again. Whatever the code then does differently with it —
            // stage a request, enter the ring, park, finish — is an event of its own, and the next read that
            // differs (time moved) is recorded: a schedule cannot part from another one without showing elsewhere.
            lastReadNanos = now;
            auditor().recordU64U64(AuditKind.RING_NOW, id, now);
        }
        return now;
    }

    /**
     * Zeroed native memory ({@code calloc}), as {@code UringRing} hands out; see the class doc.
     *
     * @param bytes the size, {@code >= 0}
     * @return the memory
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws KernelException {@code ENOMEM} naming the size if there is no memory
     */
    @Override
    public MemorySegment allocate(long bytes) {
        checkOpen();
        if (bytes < 0) {
            throw new IllegalArgumentException("SimRing.allocate: bytes must be >= 0, was " + bytes);
        }
        MemorySegment segment = kernel.memory().allocate(id, bytes, clock().nowNanos());
        auditor().record("ring.allocate", Auditor.u64(id), Auditor.u64(bytes));
        return segment;
    }

    /**
     * Frees memory from {@link #allocate} of any ring of this kernel. {@link MemorySegment#NULL} is ignored, as
     * {@code UringRing} ignores it.
     *
     * @param segment the memory
     * @throws IllegalArgumentException if it is not a live allocation of this kernel's rings (never allocated,
     *                                  a slice of one, or freed already)
     * @throws IllegalStateException if it is the buffer of a request in flight on any ring of the kernel
     */
    @Override
    public void free(MemorySegment segment) {
        checkOpen();
        Objects.requireNonNull(segment, "segment");
        if (segment.isNative() && segment.address() == 0) {
            return;
        }
        if (!kernel.memory().isAllocation(segment)) {
            throw new IllegalArgumentException(
                    "SimRing.free: memory not allocated by a ring of this kernel, or already freed: " + segment);
        }
        for (SimRing ring : kernel.rings()) {
            ring.inFlight.checkNotInFlight(segment);
        }
        kernel.memory().free(segment);
        auditor().record("ring.free", Auditor.u64(id), Auditor.u64(segment.byteSize()));
    }

    /**
     * Closes the ring. Staged entries that were never submitted are dropped.
     *
     * @throws IllegalStateException if requests are still in flight: the caller must wait for every request to
     *                               complete first
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (inFlight.size() > 0) {
            SimRequest first = inFlight.inSubmissionOrder().getFirst();
            throw new IllegalStateException("SimRing " + id + " closed with " + inFlight.size()
                    + " requests in flight; the first is " + first.opcode + " userData=0x"
                    + Long.toHexString(first.userData));
        }
        closed = true;
        staged.clear();
        stagedCancels = 0;
        stagedStorage = 0;
        kernel.ringClosed(this);
        auditor().record("ring.close", Auditor.u64(id));
    }

    // ------------------------------------------------------------------------------------------- simulation

    /**
     * The earliest time a request in flight can complete.
     *
     * @return nanoseconds since the epoch; {@code Long.MAX_VALUE} if nothing is in flight or every request waits
     *         for something that has not happened (data nobody sent); at most the current time if a completion
     *         is due already. Staged entries do not count: they are submitted, and get their times, at the next
     *         {@link #enter}, so a scheduler must enter a ring with {@link #staged()} entries before it moves the
     *         clock.
     */
    public long nextEventNanos() {
        return inFlight.queue().nextEventNanos();
    }

    /**
     * The number of requests in flight, cancellations included.
     *
     * @return the count
     */
    public int inFlight() {
        return inFlight.size();
    }

    /**
     * The requests in flight, for diagnostics: opcode, fd, user data, and when each can complete.
     *
     * @return one entry per request, in submission order
     */
    public List<String> describeInFlight() {
        return inFlight.describe();
    }

    /**
     * The number of staged entries not yet submitted.
     *
     * @return the count
     */
    public int staged() {
        return staged.size();
    }

    /**
     * Whether {@link #wake()} was called since the last {@link #enter}.
     *
     * @return true if a wake-up is pending
     */
    public boolean wakeRequested() {
        return wakeRequested;
    }

    /**
     * Yes: a read may ask the page cache at the call, as on runtime-uring ({@link #readWithoutWaiting}).
     *
     * @return true
     */
    @Override
    public boolean readsWithoutWaiting() {
        return true;
    }

    /**
     * The simulated {@code preadv2} with {@code RWF_NOWAIT} ({@link SimSystemCalls#readWithoutWaiting}): a
     * synchronous call of the simulated kernel, with its latency and audit; whether the pages are cached is the
     * seed's. Checks its arguments as runtime-uring's ring does.
     *
     * @throws IllegalArgumentException if the buffer is not native, the range does not fit it, or the offset is
     *     negative
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public int readWithoutWaiting(int fd, MemorySegment buffer, long at, int length, long offset) {
        checkOpen();
        Ring.checkReadWithoutWaiting(buffer, at, length, offset);
        return kernel.system().readWithoutWaiting(fd, buffer.asSlice(at, length), offset);
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /** Each opcode's name in UTF-8, as its completions' audit events carry it. */
    private static final byte[][] OPCODE_NAMES = new byte[Opcode.values().length][];

    static {
        for (Opcode opcode : Opcode.values()) {
            OPCODE_NAMES[opcode.ordinal()] = Auditor.utf8(opcode.name());
        }
    }

    /** How many bytes of the request's buffer a completion moved, which its audit event carries. */
    private static int transferredBytes(SimRequest request, int result) {
        return switch (request.opcode) {
            case READ, WRITE, RECV, SEND -> Math.max(0, result);
            default -> 0;
        };
    }

    @Override
    public String toString() {
        return "SimRing(" + id + ", entries=" + entries + ", staged=" + staged.size() + ", inFlight="
                + inFlight.size() + ")";
    }
}
