package dev.lockstep.sim;

import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.SimKernel;
import dev.lockstep.sim.os.SimRing;

/**
 * How the simulated kernel's rings behave: request latency, the largest ring, and the rates of the legal but
 * inconvenient results a real kernel produces, so that the engine's handling of each is exercised.
 *
 * <p>Every rate is a probability in {@code [0, 1]}; every roll consumes one draw whatever the rate (see
 * {@link Generator#chance}).
 *
 * @param maxRingEntries the largest ring {@link SimKernel#openRing} accepts: a power of two, {@code >= 1}
 * @param minLatencyNanos the shortest time from submission to completion of a request, {@code >= 0}
 * @param maxLatencyNanos the longest, {@code >= minLatencyNanos}; each request draws its latency uniformly
 *                        from this range at {@link Site#RING_LATENCY} (a receive or accept also waits for its
 *                        data or connection; a connect for its round trip)
 * @param shortReadRate the chance that a {@code READ} or {@code RECV} asks the file or socket for a seeded
 *                      {@code [1, length - 1]} bytes instead of {@code length}: a short result, never 0 unless at
 *                      end of file or stream
 * @param shortWriteRate the chance that a {@code WRITE} or {@code SEND} transfers a seeded {@code [1, length - 1]}
 *                       bytes instead of {@code length}
 * @param spuriousAgainRate the chance that a {@code READ}, {@code WRITE}, {@code RECV} or {@code SEND}
 *                          completes {@code -EAGAIN} without doing anything
 * @param spuriousInterruptRate the same for {@code -EINTR}
 * @param cancelRaceRate the chance that an {@code ASYNC_CANCEL} loses the race with a target that is running
 *                       (a file request, a send or a {@code NOP}, which a kernel runs at once or on a worker):
 *                       the target completes with its real result and the cancel with 0 or {@code -EALREADY}
 *                       (seeded). A target whose result is already due always wins: the cancel completes
 *                       {@code -ENOENT}
 * @param minCallLatencyNanos the shortest time a synchronous kernel call takes ({@code open}, {@code mkdir},
 *                            {@code unlink}, {@code rmdir}, directory listing, {@code ftruncate}, {@code fstat},
 *                            {@code close}, {@code flock}, socket set-up), {@code >= 0}. runtime-uring makes each
 *                            of these as a blocking system call on the worker's thread, so the simulator moves the
 *                            clock by a latency drawn uniformly at {@link Site#SYSCALL_LATENCY} during the call:
 *                            the calling worker does nothing else meanwhile
 * @param maxCallLatencyNanos the longest, {@code >= minCallLatencyNanos}
 * @param minSyncCallLatencyNanos the shortest time a synchronous {@code fsync} or {@code syncfs} takes, and an
 *                                {@code FSYNC} of a directory through the ring (drawn at {@link Site#RING_LATENCY}
 *                                instead of the ring's range), {@code >= 0}: a journal commit, far slower than
 *                                other calls on a real disk
 * @param maxSyncCallLatencyNanos the longest, {@code >= minSyncCallLatencyNanos}
 * @param inlineCompletionRate the chance that a request Linux first tries without waiting — a {@code SEND}, a
 *                             {@code RECV}, a {@code READ} or {@code WRITE} of a file opened without
 *                             {@code O_DIRECT} (a write not {@code RWF_DSYNC}) — completes at submission, in the {@code enter} that submits it
 *                             (rolled at {@link Site#INLINE_COMPLETION}), instead of after a latency drawn from
 *                             {@code [minLatencyNanos, maxLatencyNanos]}. io_uring issues such a request at once
 *                             and posts its completion before {@code io_uring_enter} returns when the socket has
 *                             room or data, or the pages are cached: then the fiber that awaits it never parks
 *                             (runtime-uring's inline turn) and other fibers of its worker do not run in between. A
 *                             receive with nothing arrived still waits for its data. The same chance decides
 *                             whether a read asked at the call without waiting ({@code preadv2} with
 *                             {@code RWF_NOWAIT}, {@link SimRing#readWithoutWaiting}) finds its pages cached
 */
public record KernelBehavior(int maxRingEntries, long minLatencyNanos, long maxLatencyNanos, double shortReadRate,
        double shortWriteRate, double spuriousAgainRate, double spuriousInterruptRate, double cancelRaceRate,
        long minCallLatencyNanos, long maxCallLatencyNanos, long minSyncCallLatencyNanos,
        long maxSyncCallLatencyNanos, double inlineCompletionRate) {

    /** The largest ring io_uring allows: 32768 entries. */
    public static final int DEFAULT_MAX_RING_ENTRIES = 32768;

    /**
     * Ring latency of 1 to 50 µs and no inconvenient results: a fast, well-behaved kernel; synchronous calls of 1
     * to 20 µs, and synchronous syncs of 100 µs to 2 ms (a journal commit on a solid-state disk). Half the requests
     * io_uring tries at once complete at submission: both ways a request can end are common.
     */
    public static final KernelBehavior DEFAULT =
            new KernelBehavior(DEFAULT_MAX_RING_ENTRIES, 1_000, 50_000, 0, 0, 0, 0, 0, 1_000, 20_000, 100_000,
                    2_000_000, 0.5);

    /**
     * Validates the fields.
     *
     * @throws InvalidConfigException naming the field and its value
     */
    public KernelBehavior {
        if (maxRingEntries < 1 || Integer.bitCount(maxRingEntries) != 1) {
            throw new InvalidConfigException("KernelBehavior.maxRingEntries",
                    "KernelBehavior.maxRingEntries must be a power of two >= 1, was " + maxRingEntries);
        }
        if (minLatencyNanos < 0) {
            throw new InvalidConfigException("KernelBehavior.minLatencyNanos",
                    "KernelBehavior.minLatencyNanos must be >= 0, was " + minLatencyNanos);
        }
        if (maxLatencyNanos < minLatencyNanos) {
            throw new InvalidConfigException("KernelBehavior.maxLatencyNanos",
                    "KernelBehavior.maxLatencyNanos must be >= minLatencyNanos = "
                    + minLatencyNanos + ", was " + maxLatencyNanos);
        }
        if (maxLatencyNanos > MAX_LATENCY_NANOS) {
            throw new InvalidConfigException("KernelBehavior.maxLatencyNanos",
                    "KernelBehavior.maxLatencyNanos must be at most " + MAX_LATENCY_NANOS + " (a day), was "
                    + maxLatencyNanos);
        }
        requireRange("CallLatencyNanos", minCallLatencyNanos, maxCallLatencyNanos);
        requireRange("SyncCallLatencyNanos", minSyncCallLatencyNanos, maxSyncCallLatencyNanos);
        StorageFaults.requireRate("KernelBehavior", "shortReadRate", shortReadRate);
        StorageFaults.requireRate("KernelBehavior", "shortWriteRate", shortWriteRate);
        StorageFaults.requireRate("KernelBehavior", "spuriousAgainRate", spuriousAgainRate);
        StorageFaults.requireRate("KernelBehavior", "spuriousInterruptRate", spuriousInterruptRate);
        StorageFaults.requireRate("KernelBehavior", "cancelRaceRate", cancelRaceRate);
        StorageFaults.requireRate("KernelBehavior", "inlineCompletionRate", inlineCompletionRate);
    }

    private static void requireRange(String name, long min, long max) {
        if (min < 0) {
            throw new InvalidConfigException("KernelBehavior.min" + name,
                    "KernelBehavior.min" + name + " must be >= 0, was " + min);
        }
        if (max < min) {
            throw new InvalidConfigException("KernelBehavior.max" + name,
                    "KernelBehavior.max" + name + " must be >= min" + name + " = " + min + ", was " + max);
        }
        if (max > MAX_LATENCY_NANOS) {
            throw new InvalidConfigException("KernelBehavior.max" + name,
                    "KernelBehavior.max" + name + " must be at most " + MAX_LATENCY_NANOS + " (a day), was " + max);
        }
    }

    /**
     * The longest latency a behaviour takes, a day: a simulated time plus a latency then cannot overflow (a latency
     * near {@code Long.MAX_VALUE} wrapped to one in the past, a request completing at once).
     */
    public static final long MAX_LATENCY_NANOS = 86_400_000_000_000L;

    /**
     * An adversarial kernel: every inconvenient result at 10%, latency 1 µs to 1 ms so completions reorder, and
     * synchronous calls as {@link #DEFAULT}'s.
     *
     * @return the behaviour
     */
    public static KernelBehavior adversarial() {
        return DEFAULT.withLatency(1_000, 1_000_000).withShortTransfers(0.1, 0.1).withSpuriousErrors(0.1, 0.1)
                .withCancelRaceRate(0.1);
    }

    /**
     * This behaviour with another latency range for synchronous calls other than syncs.
     *
     * @param minNanos the shortest
     * @param maxNanos the longest
     * @return the new behaviour
     */
    public KernelBehavior withCallLatency(long minNanos, long maxNanos) {
        return new KernelBehavior(maxRingEntries, minLatencyNanos, maxLatencyNanos, shortReadRate, shortWriteRate,
                spuriousAgainRate, spuriousInterruptRate, cancelRaceRate, minNanos, maxNanos, minSyncCallLatencyNanos,
                maxSyncCallLatencyNanos, inlineCompletionRate);
    }

    /**
     * This behaviour with another latency range for synchronous syncs ({@code fsync} of a directory or a file
     * being created, {@code syncfs}).
     *
     * @param minNanos the shortest
     * @param maxNanos the longest
     * @return the new behaviour
     */
    public KernelBehavior withSyncCallLatency(long minNanos, long maxNanos) {
        return new KernelBehavior(maxRingEntries, minLatencyNanos, maxLatencyNanos, shortReadRate, shortWriteRate,
                spuriousAgainRate, spuriousInterruptRate, cancelRaceRate, minCallLatencyNanos, maxCallLatencyNanos,
                minNanos, maxNanos, inlineCompletionRate);
    }

    /**
     * This behaviour with another latency range.
     *
     * @param minNanos the shortest latency
     * @param maxNanos the longest latency
     * @return the new behaviour
     */
    public KernelBehavior withLatency(long minNanos, long maxNanos) {
        return new KernelBehavior(maxRingEntries, minNanos, maxNanos, shortReadRate, shortWriteRate,
                spuriousAgainRate, spuriousInterruptRate, cancelRaceRate, minCallLatencyNanos,
                maxCallLatencyNanos, minSyncCallLatencyNanos, maxSyncCallLatencyNanos, inlineCompletionRate);
    }

    /**
     * This behaviour with other rates of short transfers.
     *
     * @param readRate the short read and receive rate
     * @param writeRate the short write and send rate
     * @return the new behaviour
     */
    public KernelBehavior withShortTransfers(double readRate, double writeRate) {
        return new KernelBehavior(maxRingEntries, minLatencyNanos, maxLatencyNanos, readRate, writeRate,
                spuriousAgainRate, spuriousInterruptRate, cancelRaceRate, minCallLatencyNanos,
                maxCallLatencyNanos, minSyncCallLatencyNanos, maxSyncCallLatencyNanos, inlineCompletionRate);
    }

    /**
     * This behaviour with other rates of spurious errors.
     *
     * @param againRate the {@code EAGAIN} rate
     * @param interruptRate the {@code EINTR} rate
     * @return the new behaviour
     */
    public KernelBehavior withSpuriousErrors(double againRate, double interruptRate) {
        return new KernelBehavior(maxRingEntries, minLatencyNanos, maxLatencyNanos, shortReadRate, shortWriteRate,
                againRate, interruptRate, cancelRaceRate, minCallLatencyNanos,
                maxCallLatencyNanos, minSyncCallLatencyNanos, maxSyncCallLatencyNanos, inlineCompletionRate);
    }

    /**
     * This behaviour with another cancel race rate.
     *
     * @param rate the chance a cancel loses the race with a running target
     * @return the new behaviour
     */
    public KernelBehavior withCancelRaceRate(double rate) {
        return new KernelBehavior(maxRingEntries, minLatencyNanos, maxLatencyNanos, shortReadRate, shortWriteRate,
                spuriousAgainRate, spuriousInterruptRate, rate, minCallLatencyNanos,
                maxCallLatencyNanos, minSyncCallLatencyNanos, maxSyncCallLatencyNanos, inlineCompletionRate);
    }

    /**
     * This behaviour with another chance that a request io_uring tries at once completes at submission.
     *
     * @param rate the chance, {@code [0, 1]}; 0 makes every request wait its drawn latency
     * @return the new behaviour
     */
    public KernelBehavior withInlineCompletionRate(double rate) {
        return new KernelBehavior(maxRingEntries, minLatencyNanos, maxLatencyNanos, shortReadRate, shortWriteRate,
                spuriousAgainRate, spuriousInterruptRate, cancelRaceRate, minCallLatencyNanos,
                maxCallLatencyNanos, minSyncCallLatencyNanos, maxSyncCallLatencyNanos, rate);
    }

    /**
     * This behaviour with another largest ring.
     *
     * @param entries the largest ring
     * @return the new behaviour
     */
    public KernelBehavior withMaxRingEntries(int entries) {
        return new KernelBehavior(entries, minLatencyNanos, maxLatencyNanos, shortReadRate, shortWriteRate,
                spuriousAgainRate, spuriousInterruptRate, cancelRaceRate, minCallLatencyNanos,
                maxCallLatencyNanos, minSyncCallLatencyNanos, maxSyncCallLatencyNanos, inlineCompletionRate);
    }
}
