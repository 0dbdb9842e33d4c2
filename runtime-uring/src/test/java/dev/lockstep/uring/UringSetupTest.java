package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The set-up's ladder of fallbacks, played with flags refused ({@link UringSetup#refuseSetupFlags}) as a kernel or a
 * sandbox without them would: each refusal takes the next choice that lacks the refused flag and keeps everything
 * else it can, and {@link RingReport} names what was refused and what is used.
 */
class UringSetupTest {
    private static final UringKernel KERNEL = new UringKernel();

    @AfterEach
    void restoreTheKernelsAnswers() {
        UringSetup.refuseSetupFlags(0);
    }

    /** The flags a ring opened now is set up with; the ring is closed again. */
    private static String flagsOfANewRing() {
        try (UringRing ring = KERNEL.openRing(8)) {
            return ring.setupFlags();
        }
    }

    /**
     * A kernel that refuses only {@code TASKRUN_FLAG} keeps {@code SINGLE_ISSUER|DEFER_TASKRUN}: the flag saves an
     * enter now and then, while losing {@code DEFER_TASKRUN} would move every completion's task work back to
     * interrupting the worker.
     */
    @Test
    void refusingOnlyTheTaskRunFlagKeepsDeferredTaskRun() {
        assumeTrue(flagsOfANewRing().contains("DEFER_TASKRUN"), "the kernel takes IORING_SETUP_DEFER_TASKRUN (6.1+)");
        UringSetup.refuseSetupFlags(UringSetup.SETUP_TASKRUN_FLAG);
        try (UringRing ring = KERNEL.openRing(8)) {
            assertEquals("SINGLE_ISSUER|DEFER_TASKRUN|SUBMIT_ALL|CQSIZE", ring.setupFlags());
            List<String> fallbacks = RingReport.fallbacks(ring);
            assertTrue(fallbacks.contains("setup flags SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|SUBMIT_ALL|CQSIZE"
                    + " refused, using SINGLE_ISSUER|DEFER_TASKRUN|SUBMIT_ALL|CQSIZE (without TASKRUN_FLAG)"),
                    fallbacks::toString);
        }
        // Rings after the first skip the refused choice.
        assertEquals("SINGLE_ISSUER|DEFER_TASKRUN|SUBMIT_ALL|CQSIZE", flagsOfANewRing());
    }

    /** Each flag refused in turn takes the ladder one rung further down, to a ring with no flags at all. */
    @Test
    void eachRefusedFlagTakesTheNextChoiceWithoutIt() {
        assumeTrue(flagsOfANewRing().contains("SUBMIT_ALL"), "the kernel takes IORING_SETUP_SUBMIT_ALL (5.18+)");
        UringSetup.refuseSetupFlags(UringSetup.SETUP_DEFER_TASKRUN);
        assertEquals("SUBMIT_ALL|CQSIZE", flagsOfANewRing());
        UringSetup.refuseSetupFlags(UringSetup.SETUP_SUBMIT_ALL);
        assertEquals("CQSIZE", flagsOfANewRing());
        UringSetup.refuseSetupFlags(UringSetup.SETUP_CQSIZE);
        try (UringRing ring = KERNEL.openRing(8)) {
            assertEquals("none", ring.setupFlags());
            List<String> fallbacks = RingReport.fallbacks(ring);
            assertTrue(fallbacks.contains("setup flags SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|SUBMIT_ALL|CQSIZE"
                    + " refused, using none (without SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|SUBMIT_ALL|CQSIZE)"),
                    fallbacks::toString);
        }
    }

    /** The preferred set-up names no set-up fallback. */
    @Test
    void thePreferredSetUpIsNoFallback() {
        try (UringRing ring = KERNEL.openRing(8)) {
            assumeTrue(ring.setupFlagBits() == UringSetup.PREFERRED_SETUP, "the kernel takes the preferred set-up");
            List<String> fallbacks = RingReport.fallbacks(ring);
            assertTrue(fallbacks.stream().noneMatch(taken -> taken.startsWith("setup flags")), fallbacks::toString);
        }
    }
}
