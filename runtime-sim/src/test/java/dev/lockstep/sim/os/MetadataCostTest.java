package dev.lockstep.sim.os;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_DIRECTORY;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.StorageIoException;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.SystemCalls;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.StorageFaults;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Synchronous kernel calls block a worker in runtime-uring, so in the simulator they take simulated time, and
 * each fails at the fault rate that covers it.
 */
class MetadataCostTest {

    private static final long CALL = 7_000;
    private static final long SYNC = 500_000;
    private static final KernelBehavior FIXED = KernelBehavior.DEFAULT.withCallLatency(CALL, CALL)
            .withSyncCallLatency(SYNC, SYNC);

    @Test
    void everySynchronousCallMovesTheClockByItsLatency() {
        Harness harness = new Harness(31);
        SimKernel kernel = harness.kernel("127.0.0.1", FIXED, StorageFaults.NONE);
        SystemCalls system = kernel.system();
        long start = harness.clock.nowNanos();
        int fd = system.open("/f", O_RDWR | O_CREAT);
        assertEquals(start + CALL, harness.clock.nowNanos(), "open");
        system.truncate(fd, 10);
        system.size(fd);
        system.mkdir("/d");
        system.list("/");
        system.isDirectory("/d");
        system.unlink("/f");
        system.rmdir("/d");
        system.close(fd);
        assertEquals(start + 9 * CALL, harness.clock.nowNanos(), "eight more calls");
        int root = system.open("/", O_DIRECTORY);
        system.fsync(root);
        system.syncFileSystem(root);
        assertEquals(start + 10 * CALL + 2 * SYNC, harness.clock.nowNanos(), "a directory fsync and a syncfs");
        int socket = system.socket(new InetSocketAddress("127.0.0.1", 80));
        system.bindAndListen(socket, new InetSocketAddress("127.0.0.1", 80), 16);
        assertEquals(start + 12 * CALL + 2 * SYNC, harness.clock.nowNanos(), "socket set-up");
        KernelException failed = assertThrows(KernelException.class, () -> system.close(999));
        assertEquals(Errno.EBADF, failed.errno());
        assertEquals(start + 13 * CALL + 2 * SYNC, harness.clock.nowNanos(), "a failed call costs its time too");
    }

    @Test
    void latenciesAreSeededWithinTheirRanges() {
        KernelBehavior ranged = KernelBehavior.DEFAULT.withCallLatency(1_000, 9_000);
        long first = elapsedOverTenOpens(41, ranged);
        assertEquals(first, elapsedOverTenOpens(41, ranged), "same seed, same latencies");
        assertTrue(first >= 10 * 1_000 && first <= 10 * 9_000, "within the range: " + first);
        assertTrue(first != elapsedOverTenOpens(42, ranged), "another seed draws other latencies");
    }

    private static long elapsedOverTenOpens(long seed, KernelBehavior behavior) {
        Harness harness = new Harness(seed);
        SystemCalls system = harness.kernel("127.0.0.1", behavior, StorageFaults.NONE).system();
        long start = harness.clock.nowNanos();
        for (int i = 0; i < 10; i++) {
            system.open("/f" + i, O_RDWR | O_CREAT);
        }
        return harness.clock.nowNanos() - start;
    }

    @Test
    void creatingABlobCostsItsDirectoryAndFileSyncsInSimulatedTime() {
        Duration spent = SimRunner.of(SimConfig.builder().seed(32).kernelBehavior(FIXED).build()).start(ctx -> {
            Instant before = ctx.now();
            ctx.open("fresh", "blob").await().blob().close();
            return Duration.between(before, ctx.now());
        });
        // A new partition's directory entry and the file's entry are each synced before open returns: two
        // directory fsyncs through the ring, each a journal commit (the file's own fsync has the ring's latency).
        assertTrue(spent.toNanos() >= 2 * SYNC, "creating a blob took " + spent);
    }

    @Test
    void mkdirFailsAtTheOpenRateAsCreatingAFileDoes() {
        Harness harness = new Harness(33);
        SystemCalls system = harness.kernel("127.0.0.1", FIXED, StorageFaults.builder().openRate(1).build())
                .system();
        KernelException failed = assertThrows(KernelException.class, () -> system.mkdir("/d"));
        assertEquals(Errno.EIO, failed.errno());
        assertTrue(!system.isDirectory("/d"), "a failed mkdir creates nothing");
        StorageIoException refused = assertThrows(StorageIoException.class, () -> SimRunner.of(SimConfig.builder()
                .seed(34).build()).start(ctx -> {
                    SimRunner.control(ctx).storageFaults(StorageFaults.builder().openRate(1).build());
                    return ctx.open("new-partition", "b").await();
                }));
        // The engine's open of a blob in a new partition looks the file up first, which the same rate fails.
        assertTrue(refused.getMessage().contains("open of blob 'new-partition/b'"), refused.getMessage());
    }
}
