package dev.lockstep.conformance;

/**
 * The runtime bugs this suite found, one constant per bug, used as {@link KnownBug} reasons. Each says the
 * symptom, where the fault is, and the proposed fix; the report of issue 5 lists them with the cases.
 *
 * <p>Fixed since it was found, and no longer marked: runtime-sim stalled when a completion was followed, in the
 * same service turn, by a submission staged after the ring's enter (a queued request taking the freed slot, or
 * the resubmission of a short read or write) — SimRing.nextEventNanos() ignored staged entries and the idle
 * check did not see them. Simulation's idle checks now count {@code SimRing.staged()}; the seed's full-ring
 * cases, the short-read storage cases and the poisoning network cases cover it. Also fixed: a resize refused
 * by a closing worker leaked its fd reference (testRefusedCallsReleaseTheFile); blob names over 127 bytes failed
 * on runtime-uring only (the 127-byte maximum is now checked at the call on every runtime,
 * testLongAndBinaryNames); a ready result lost to an expired {@code Clock.timeout} in the simulator
 * (testTimeoutPrefersAReadyBody).
 */
final class Bugs {
    private Bugs() {
    }


    /** Found by {@code StorageConformanceTest.testWriteBeyondTwoGibibytes}. */
    static final String SIM_FILES_CAPPED_AT_2_GIB = "BUG: runtime-sim caps a file at 2 GiB (ByteImage.MAX_SIZE ="
            + " Integer.MAX_VALUE - 8, one dense byte[] per file): a write or resize past it fails EFBIG, which"
            + " the engine reports as StorageIoException, where runtime-uring makes a sparse file and succeeds."
            + " The Blob API has no such limit. Fix: a sparse image in ByteImage (pages in a TreeMap<Long, byte[]>"
            + " with a long size; unwritten pages read as zeros), capacity accounting by allocated pages.";


}
