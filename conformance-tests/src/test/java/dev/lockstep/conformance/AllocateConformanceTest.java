package dev.lockstep.conformance;

import static dev.lockstep.conformance.StorageConformanceTest.bytes;
import static dev.lockstep.conformance.StorageConformanceTest.open;
import static dev.lockstep.conformance.StorageConformanceTest.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import java.util.Arrays;

/**
 * {@code Blob.allocate} on every runtime: it grows a shorter blob with zeros, never shrinks one or changes a byte,
 * lets writes inside the allocated range leave the length alone, survives a sync and a reopen, needs no alignment
 * on a direct-I/O blob, and refuses bad arguments at the call naming the value. What a crash leaves of an
 * allocation not synced is the simulator's (LinuxCrashOutcomesTest); a full device is StorageFaultsApiTest's and
 * UringFaultsTest's.
 */
@Group(ReadmeGroup.ALLOCATE)
class AllocateConformanceTest {

    /** An allocation past the end grows the blob with zeros; a sync makes the length durable for a reopen. */
    @Conformance
    void testAllocationGrowsTheBlobWithZeros(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "log")) {
                blob.writeAt(0, bytes("abc")).await();
                blob.allocate(0, 8192).await();
                assertEquals(8192, blob.length());
                blob.allocate(10_000, 1).await();
                assertEquals(10_001, blob.length());
                blob.sync().await();
            }
            OpenedBlob reopened = ctx.open("partition", "log").await();
            try (Blob blob = reopened.blob()) {
                assertEquals(10_001, reopened.length());
                byte[] expected = Arrays.copyOf(bytes("abc"), 10_001);
                assertArrayEquals(expected, blob.readAt(0, 10_001).await());
            }
            return null;
        });
    }

    /** An allocation inside the blob changes neither its length nor a byte; writes inside one do not grow it. */
    @Conformance
    void testAllocationNeverShrinksAndWritesInsideKeepTheLength(Runtimes rt) {
        rt.runner().start(ctx -> {
            byte[] data = random(31, 5000);
            try (Blob blob = open(ctx, "partition", "segment")) {
                blob.writeAt(0, data).await();
                blob.allocate(100, 200).await();
                blob.allocate(0, 5000).await();
                assertEquals(5000, blob.length());
                assertArrayEquals(data, blob.readAt(0, 5000).await());
                blob.allocate(0, 1 << 16).await();
                blob.writeAt(6000, bytes("appended")).await();
                assertEquals(1 << 16, blob.length(), "a write inside the allocation leaves the length alone");
                assertEquals("appended", StorageConformanceTest.text(blob.readAt(6000, 8).await()));
                assertArrayEquals(new byte[1000], blob.readAt(5000, 1000).await());
            }
            return null;
        });
    }

    /** A direct-I/O blob allocates any range: no alignment is asked of it. */
    @Conformance
    void testDirectBlobsAllocateUnalignedRanges(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = ctx.open("partition", "direct", OpenOptions.DIRECT).await().blob()) {
                blob.allocate(3, 5).await();
                assertEquals(8, blob.length());
            }
            return null;
        });
    }

    /** Bad arguments fail at the call naming the value, the same on every runtime; a closed blob is refused. */
    @Conformance
    void testRefusalsNameTheValue(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob closed;
            try (Blob blob = open(ctx, "partition", "b")) {
                assertRefused("-1", () -> blob.allocate(-1, 10));
                assertRefused("-5", () -> blob.allocate(0, -5));
                assertRefused("was 0", () -> blob.allocate(7, 0));
                assertRefused("overflows", () -> blob.allocate(Long.MAX_VALUE, 2));
                assertEquals(0, blob.length(), "nothing refused changed the blob");
                closed = blob;
            }
            ClosedException refused = assertThrows(ClosedException.class, () -> closed.allocate(0, 1));
            assertTrue(refused.getMessage().contains("partition/b"), refused.getMessage());
            return null;
        });
    }

    private static void assertRefused(String mentions, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, call);
        assertTrue(refused.getMessage().contains(mentions), refused.getMessage() + " should mention " + mentions);
    }
}
