package dev.lockstep.sim.audit;

import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.Priorities;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.SyncFailureModel;

/**
 * The decision site of one draw from the {@link Generator}: which part of the simulator asked for randomness
 * and why.
 *
 * <p>Every draw names its site so that a run can be recorded (the {@link Auditor} hashes site and value) and
 * two runs can be diffed draw by draw: the first draw whose site or value differs localizes a divergence. The
 * constants are part of the audit format: renaming or reordering them changes recorded digests, so add new
 * ones at the end.
 */
public enum Site {
    /** The scheduler's choice of the next runnable fiber. */
    SCHEDULE,
    /** Randomness handed to application code through the runtime. */
    APPLICATION,
    /** The latency of a ring request: how long after submission it may complete. */
    RING_LATENCY,
    /** The order in which completions due at the same {@link dev.lockstep.kernel.Ring#enter} are delivered. */
    COMPLETION_ORDER,
    /** Whether a read or receive returns fewer bytes than asked, and how many. */
    SHORT_READ,
    /** Whether a write or send accepts fewer bytes than asked, and how many. */
    SHORT_WRITE,
    /** Whether a read, write, receive or send fails spuriously with {@code EAGAIN}. */
    SPURIOUS_EAGAIN,
    /** Whether a read, write, receive or send fails spuriously with {@code EINTR}. */
    SPURIOUS_EINTR,
    /** Whether a cancelled request that was already running completes with its real result. */
    CANCEL_RACE,
    /** The cancel's own result when it lost the race: {@code 0} or {@code -EALREADY}. */
    CANCEL_RACE_RESULT,
    /** Whether an {@code open} fails with an injected fault. */
    FAULT_OPEN,
    /** Whether a file read fails with an injected fault. */
    FAULT_READ,
    /** Whether a file write fails with an injected fault. */
    FAULT_WRITE,
    /** Whether an {@code fsync} fails with an injected fault. */
    FAULT_SYNC,
    /** Whether a {@code truncate} fails with an injected fault. */
    FAULT_RESIZE,
    /** Whether an {@code unlink} or {@code rmdir} fails with an injected fault. */
    FAULT_REMOVE,
    /** Whether a directory listing fails with an injected fault. */
    FAULT_SCAN,
    /** Whether a failed write left a prefix in the page cache, and how long it is. */
    PARTIAL_WRITE,
    /** How many unsynced mutations of a file survive a crash under {@link CrashPolicy#PREFIX}. */
    CRASH_PREFIX,
    /** Whether one unsynced mutation survives a crash under {@link CrashPolicy#SUBSET}. */
    CRASH_SUBSET,
    /** Which 512-byte sectors of a torn write reached the disk. */
    CRASH_TEAR,
    /** The jitter added to one network delivery. */
    NETWORK_JITTER,
    /** Whether a send breaks its connection (a reset). */
    NETWORK_BREAK,
    /** When {@link SimRunner#startAndRecover} cuts a run: see {@link SimConfig#crashWithinNanos()}. */
    CRASH_POINT,
    /** Whether an unsynced write or resize dropped by a failed sync reached the disk ({@link SyncFailureModel#LINUX}). */
    SYNC_WRITEBACK,
    /** How long one synchronous kernel call keeps its worker busy: see {@link KernelBehavior#minCallLatencyNanos()}. */
    SYSCALL_LATENCY,
    /**
     * Whether a request io_uring tries at once completes at submission: see
     * {@link KernelBehavior#inlineCompletionRate()}.
     */
    INLINE_COMPLETION,
    /**
     * Whether a directory entry created, removed or replaced since its directory's last {@code fsync} survives
     * a crash under {@link CrashPolicy#PREFIX} or {@link CrashPolicy#SUBSET}.
     */
    CRASH_ENTRY,
    /**
     * Whether a fault point ({@link dev.lockstep.Search#faultPoint}) reached for the first time in a run is
     * enabled for the rest of it: see {@link FaultPoints}.
     */
    FAULT_POINT_ENABLED,
    /** Whether an enabled fault point fires at one reach: see {@link FaultPoints}. */
    FAULT_POINT_FIRED,
    /** The fiber step at which a priority change point falls: see {@link Priorities}. */
    PRIORITY_CHANGE_POINT,
    /** The priority a fiber is given when it first becomes runnable: see {@link Priorities}. */
    FIBER_PRIORITY,
    /** Whether a file read returns one bit flipped, and which: see {@link StorageFaults#corruptReadRate()}. */
    CORRUPT_READ,
    /** Whether a write stores one bit flipped, and which: see {@link StorageFaults#corruptWriteRate()}. */
    CORRUPT_WRITE,
    /** Whether a write lands at another offset, and where: see {@link StorageFaults#misdirectedWriteRate()}. */
    MISDIRECTED_WRITE,
    /**
     * Whether a call that adds a directory entry finds no room for it ({@code ENOSPC}): see
     * {@link StorageFaults#metadataFullRate()}.
     */
    FAULT_METADATA_FULL
}
