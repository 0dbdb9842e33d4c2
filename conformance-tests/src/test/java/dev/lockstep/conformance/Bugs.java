package dev.lockstep.conformance;

/**
 * The runtime bugs this suite found, one constant per bug, used as {@link KnownBug} reasons. Each says the
 * symptom, where the fault is, and the proposed fix; the report of issue 5 lists them with the cases.
 *
 * <p>Fixed since it was found, and no longer marked: runtime-sim stalled when a completion was followed, in the
 * same service turn, by a submission staged after the ring's enter (a queued request taking the freed slot, or
 * the resubmission of a short read or write) — SimRing.nextEventNanos() ignored staged entries and the idle
 * check did not see them. Simulation's idle checks now count {@code SimRing.staged()}; the seed's full-ring
 * cases, the short-read storage cases and the poisoning network cases cover it.
 */
final class Bugs {
    private Bugs() {
    }

    /** Found by {@code StorageConformanceTest.testRefusedCallsReleaseTheFile}, on both runtimes. */
    static final String ENGINE_REFUSED_RESIZE_LEAKS_FD = "BUG: runtime-core EngineBlob.resize takes a reference to"
            + " the blob's fd (fd.acquire()) before worker.register(new Immediate(..)), and only the Immediate's"
            + " body releases it; when a closing worker refuses the request the body never runs and Immediate's"
            + " release() does nothing, so the reference leaks and the blob's file stays open after Blob.close()"
            + " (until the process exits). Fix: let the request own the reference — an Immediate subclass (or a"
            + " release hook on Immediate) whose release(ring) calls held.release(), with the body no longer"
            + " releasing it — as RingRequest does for reads, writes and syncs.";

    /** Found by {@code StorageConformanceTest.testWriteBeyondTwoGibibytes}. */
    static final String SIM_FILES_CAPPED_AT_2_GIB = "BUG: runtime-sim caps a file at 2 GiB (ByteImage.MAX_SIZE ="
            + " Integer.MAX_VALUE - 8, one dense byte[] per file): a write or resize past it fails EFBIG, which"
            + " the engine reports as StorageIoException, where runtime-uring makes a sparse file and succeeds."
            + " The Blob API has no such limit. Fix: a sparse image in ByteImage (pages in a TreeMap<Long, byte[]>"
            + " with a long size; unwritten pages read as zeros), capacity accounting by allocated pages.";

    /** Found by {@code StorageConformanceTest.testLongAndBinaryNames}. */
    static final String LONG_BLOB_NAMES_FAIL_ON_URING = "BUG: a blob name longer than 127 bytes cannot be opened on"
            + " runtime-uring: runtime-core's EngineStorage names the file by the hex of the blob name"
            + " (blobPath), 2 characters per byte, and Linux refuses file names over NAME_MAX = 255 bytes"
            + " (ENAMETOOLONG, reported as StorageIoException '... errno (36)': Errno.describe does not know 36);"
            + " runtime-sim has no NAME_MAX, so the same open succeeds in the simulator. Storage promises arbitrary"
            + " non-empty names. Fix: in EngineStorage, name files that would exceed NAME_MAX by a bounded"
            + " encoding (e.g. hex of the first 64 bytes + '-' + hex of a SHA-256 of the whole name, the full name"
            + " kept in a small side record scan can read), or else validate a documented maximum at the call on"
            + " both runtimes; and make SimFileSystem refuse components over 255 bytes with ENAMETOOLONG as Linux"
            + " does, so the simulator cannot hide such a limit.";

    /** Found by {@code RuntimeContractTest.testTimeoutPrefersAReadyBody}. */
    static final String ENGINE_EXPIRED_TIMEOUT_BEATS_READY_RESULT = "BUG: under Clock.timeout a ready result loses to"
            + " an expired deadline, deterministically in the simulator: runtime-core's Fibers.await calls"
            + " fiber.checkInterrupts(operation) before its first poll, so once the scope's timer has fired the"
            + " await throws TimeoutException (and closes the operation) even when the operation's result is"
            + " already there; with Duration.ZERO the timer is due at admission in the simulator (ring time ="
            + " cached time), so ctx.timeout(ZERO, () -> op.await()) and ctx.stop(code, Duration.ZERO) with no"
            + " holder left throw there, while on runtime-uring the live clock is a little ahead and they return."
            + " commonware's timeout is select! biased to the future. Fix: in Fibers.await check an abort first"
            + " (an aborted task must not go on), then poll, and check expired timeout scopes only when the poll"
            + " is pending.";
}
