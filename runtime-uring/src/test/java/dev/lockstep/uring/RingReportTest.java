package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up line and the fallbacks it names, on this kernel and with the opcodes taken away. */
class RingReportTest {
    @Test
    void theStartUpLineNamesTheKernelFlagsFeaturesAndFallbacks() {
        try (UringRing ring = new UringKernel().openRing(8)) {
            String line = RingReport.startupLine(ring, RingReport.describeFallbacks(ring));
            assertTrue(line.startsWith("runtime-uring on Linux " + System.getProperty("os.version") + ": "), line);
            assertTrue(line.contains("io_uring rings with flags " + ring.setupFlags() + ", "), line);
            assertTrue(line.contains("features " + RingReport.features(ring.features()) + "; "), line);
            assertTrue(line.endsWith("; fallbacks: " + RingReport.describeFallbacks(ring)), line);
        }
    }

    @Test
    void aKernelWithoutTheOpcodesIsNamedInTheFallbacks() {
        UringSetup.assumeFtruncateOpcode(false);
        UringSetup.assumePathOpcodes(false);
        try (UringRing ring = new UringKernel().openRing(8)) {
            List<String> fallbacks = RingReport.fallbacks(ring);
            assertTrue(fallbacks.contains("ftruncate offloaded (no IORING_OP_FTRUNCATE, Linux 6.9+)"), fallbacks::toString);
            assertTrue(fallbacks.stream().anyMatch(taken -> taken.startsWith("path calls offloaded")),
                    fallbacks::toString);
        } finally {
            UringSetup.assumeFtruncateOpcode(null);
            UringSetup.assumePathOpcodes(null);
        }
    }

    @Test
    void theLineIsDebugUnlessAFallbackWasTaken() {
        assertEquals(System.Logger.Level.DEBUG, RingReport.startupLevel("none"));
        assertEquals(System.Logger.Level.INFO,
                RingReport.startupLevel("ftruncate offloaded (no IORING_OP_FTRUNCATE, Linux 6.9+)"));
    }

    @Test
    void featuresAreNamedAndUnknownBitsKept() {
        assertEquals("none", RingReport.features(0));
        assertEquals("NODROP|EXT_ARG", RingReport.features(2 | 1 << 8));
        assertEquals("SINGLE_MMAP|0x80000000", RingReport.features(1 | 1 << 31));
    }
}
