package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.OpenedBlob;
import dev.lockstep.StorageIoException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Blob.allocate} goes through the ring: {@code IORING_OP_FALLOCATE} where the kernel has it (found by
 * {@code IORING_REGISTER_PROBE}), an {@code fallocate} on an offload thread where it does not. Both paths give
 * the same blob and the same refusal, and the file really has the space: its allocated blocks cover the range.
 */
class UringAllocateTest {
    private static final int RANGE = 1 << 20;

    @TempDir
    Path directory;

    /** Linux 5.6 added the opcode: a kernel at least that new must be found to have it. */
    @Test
    void theProbeFindsTheOpcodeOnKernelsThatHaveIt() {
        UringSetup.assumeFallocateOpcode(null);
        try (UringRing ring = new UringKernel().openRing(2)) {
            String[] version = System.getProperty("os.version").split("[.-]");
            int major = Integer.parseInt(version[0]);
            int minor = Integer.parseInt(version[1]);
            boolean expected = major > 5 || (major == 5 && minor >= 6);
            assertEquals(expected, UringSetup.usesFallocateOpcode(), "IORING_OP_FALLOCATE on Linux "
                    + System.getProperty("os.version"));
        }
    }

    @Test
    void allocateGivesTheSameBlobThroughTheOpcodeAndThroughTheOffloadedCall() throws Exception {
        byte[] opcode = allocateSequence(directory.resolve("opcode"), null);
        byte[] offloaded = allocateSequence(directory.resolve("offloaded"), false);
        assertArrayEquals(opcode, offloaded);
        byte[] expected = Arrays.copyOf("abc".getBytes(StandardCharsets.UTF_8), RANGE);
        assertArrayEquals(expected, opcode);
    }

    /** The bytes of disk blocks a file holds ({@code stat %b} times {@code %B}): what a sparse file lacks. */
    private static long allocatedBytes(Path file) throws Exception {
        Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
        stat.getOutputStream().close();
        String output = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, stat.waitFor(), output);
        String[] fields = output.split(" ");
        return Long.parseLong(fields[0]) * Long.parseLong(fields[1]);
    }

    /**
     * Writes 3 bytes, allocates 1 MiB, syncs; checks the file's blocks cover the range (a sparse resize would
     * not) and that a range past the largest file is refused typed, naming the blob; returns what a reopen reads.
     */
    private byte[] allocateSequence(Path root, Boolean opcodeAssumed) throws Exception {
        UringSetup.assumeFallocateOpcode(opcodeAssumed);
        try {
            UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
                try (Blob blob = ctx.open("p", "b").await().blob()) {
                    blob.writeAt(0, "abc".getBytes(StandardCharsets.UTF_8)).await();
                    blob.allocate(0, RANGE).await();
                    assertEquals(RANGE, blob.length());
                    StorageIoException tooFar = assertThrows(StorageIoException.class,
                            () -> blob.allocate(Long.MAX_VALUE / 2, 1).await());
                    assertTrue(tooFar.getMessage().contains("p/b") && tooFar.getMessage().contains("fallocate"),
                            tooFar.getMessage());
                    blob.sync().await();
                }
                return null;
            });
            Path file = UringStorageCallsTest.blobFile(root, "p", "b".getBytes(StandardCharsets.UTF_8));
            long allocatedBytes = allocatedBytes(file);
            assertTrue(allocatedBytes >= RANGE, "the file holds " + allocatedBytes + " bytes of blocks for a "
                    + RANGE + "-byte allocation");
            return UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
                OpenedBlob reopened = ctx.open("p", "b").await();
                try (Blob blob = reopened.blob()) {
                    assertEquals(RANGE, reopened.length());
                    return blob.readAt(0, RANGE).await();
                }
            });
        } finally {
            UringSetup.assumeFallocateOpcode(null);
        }
    }
}
