package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The start-up line and the fallbacks it names, on this kernel and with the opcodes taken away. */
class RingReportTest {
    @Test
    void theStartUpLineNamesTheKernelFlagsFeaturesAndFallbacks() {
        assertEquals("runtime-uring on Linux 6.1.0: io_uring rings with flags SINGLE_ISSUER|CQSIZE, features "
                        + "NODROP|EXT_ARG; fallbacks: ring fd not registered (IORING_REGISTER_RING_FDS, Linux 5.18+)",
                RingReport.startupLine("6.1.0", "SINGLE_ISSUER|CQSIZE", 2 | 1 << 8,
                        "ring fd not registered (IORING_REGISTER_RING_FDS, Linux 5.18+)"));
    }

    @Test
    void aLiveRingsLineNamesThisKernel() {
        try (UringRing ring = new UringKernel().openRing(8)) {
            String line = RingReport.startupLine(ring, "none");
            assertTrue(line.matches("runtime-uring on Linux " + Pattern.quote(System.getProperty("os.version"))
                    + ": io_uring rings with flags [A-Z_|]+, features [A-Z0-9_|x]+; fallbacks: none"), line);
        }
    }

    @Test
    void aKernelWithoutTheOpcodesIsNamedInTheFallbacks() {
        UringSetup.assumeFtruncateOpcode(false);
        UringSetup.assumeFallocateOpcode(false);
        UringSetup.assumePathOpcodes(false);
        try (UringRing ring = new UringKernel().openRing(8)) {
            List<String> fallbacks = RingReport.fallbacks(ring);
            List<String> offloads = List.of("ftruncate offloaded (no IORING_OP_FTRUNCATE, Linux 6.9+)",
                    "fallocate offloaded (no IORING_OP_FALLOCATE, Linux 5.6+)",
                    "path calls offloaded (no IORING_OP_OPENAT/STATX/UNLINKAT/MKDIRAT/RENAMEAT, Linux 5.15+)");
            assertEquals(offloads, fallbacks.stream().filter(offloads::contains).toList(), fallbacks::toString);
        } finally {
            UringSetup.assumeFtruncateOpcode(null);
            UringSetup.assumeFallocateOpcode(null);
            UringSetup.assumePathOpcodes(null);
        }
    }

    @Test
    void onlyTheFallocateOffloadIsNamedWhenOnlyItIsTaken() {
        UringSetup.assumeFtruncateOpcode(true);
        UringSetup.assumeFallocateOpcode(false);
        UringSetup.assumePathOpcodes(true);
        try (UringRing ring = new UringKernel().openRing(8)) {
            List<String> fallbacks = RingReport.fallbacks(ring);
            assertTrue(fallbacks.contains("fallocate offloaded (no IORING_OP_FALLOCATE, Linux 5.6+)"),
                    fallbacks::toString);
            assertFalse(fallbacks.stream().anyMatch(taken -> taken.startsWith("ftruncate")
                    || taken.startsWith("path")), fallbacks::toString);
        } finally {
            UringSetup.assumeFtruncateOpcode(null);
            UringSetup.assumeFallocateOpcode(null);
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
