package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Blob.resize} goes through the ring: {@code IORING_OP_FTRUNCATE} where the kernel has it (found by
 * {@code IORING_REGISTER_PROBE}), an {@code ftruncate} on an offload thread where it does not. Both paths give
 * the same blob.
 */
class UringResizeTest {
    @TempDir
    Path directory;

    /** Linux 6.9 added the opcode: a kernel at least that new must be found to have it. */
    @Test
    void theProbeFindsTheOpcodeOnKernelsThatHaveIt() {
        UringSetup.assumeFtruncateOpcode(null);
        try (UringRing ring = new UringKernel().openRing(2)) {
            String[] version = System.getProperty("os.version").split("[.-]");
            int major = Integer.parseInt(version[0]);
            int minor = Integer.parseInt(version[1]);
            boolean expected = major > 6 || (major == 6 && minor >= 9);
            assertEquals(expected, UringSetup.usesFtruncateOpcode(), "IORING_OP_FTRUNCATE on Linux "
                    + System.getProperty("os.version"));
        }
    }

    @Test
    void resizeGivesTheSameBlobThroughTheOpcodeAndThroughTheOffloadedCall() {
        byte[] opcode = resizeSequence(directory.resolve("opcode"), null);
        byte[] offloaded = resizeSequence(directory.resolve("offloaded"), false);
        assertArrayEquals(opcode, offloaded);
        byte[] expected = Arrays.copyOf("abc".getBytes(StandardCharsets.UTF_8), 4096 + 2);
        assertArrayEquals(expected, opcode);
    }

    /** Writes, grows, shrinks and grows a blob; returns what a reopen reads. */
    private static byte[] resizeSequence(Path root, Boolean opcodeAssumed) {
        UringSetup.assumeFtruncateOpcode(opcodeAssumed);
        try {
            return UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
                try (Blob blob = ctx.open("p", "b").await().blob()) {
                    blob.writeAt(0, "abcdef".getBytes(StandardCharsets.UTF_8)).await();
                    blob.resize(8192).await();
                    blob.resize(3).await();
                    blob.resize(4096 + 2).await();
                    assertEquals(4096 + 2, blob.length());
                    blob.sync().await();
                }
                try (Blob reopened = ctx.open("p", "b").await().blob()) {
                    assertTrue(reopened.length() == 4096 + 2, "a reopen sees the last resize");
                    return reopened.readAt(0, 4096 + 2).await();
                }
            });
        } finally {
            UringSetup.assumeFtruncateOpcode(null);
        }
    }
}
