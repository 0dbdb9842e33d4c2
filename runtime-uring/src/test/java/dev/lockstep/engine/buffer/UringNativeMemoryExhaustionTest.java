package dev.lockstep.engine.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import dev.lockstep.StorageIoException;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.uring.UringRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * On io_uring, requests whose memory cannot be had fail alone, typed and named, and their worker goes on. The
 * worker's pool is told to refuse native allocations ({@link WorkerBuffers#refuseNativeAllocation}), which fail
 * as the JDK's do when native memory runs out, without running the test JVM out of it.
 *
 * <p>Before, a lone fiber awaiting a write of more than a size class (whose copy is made at its first submission)
 * hung with its worker for ever: the request failed while its inline turn prepared it, and the turn then waited
 * in the ring for a completion that could never come. A write whose copy failed at the call threw
 * OutOfMemoryError out of {@code writeAt}, holding its blob's fd reference for ever.
 */
@org.junit.jupiter.api.Tag("adversarial")
class UringNativeMemoryExhaustionTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    /** Past the largest size class: copied into memory of its own at the first submission. */
    private static final int LARGE = 2 << 20;
    /** In the 512 KiB class, which nothing here takes before the refusal: its first chunk is refused. */
    private static final int POOLED = 300 << 10;

    private static void assertFailedForMemory(RuntimeException failure, String request) {
        assertTrue(failure.getMessage().contains(request), failure.getMessage() + " should name " + request);
        assertInstanceOf(OutOfMemoryError.class, failure.getCause(), failure.getMessage());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void writesThatGetNoNativeMemoryFailTypedAndTheWorkerGoesOn(@TempDir Path storage) {
        UringRunner.builder().workers(1).storage(storage).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                WorkerBuffers pool = Worker.current().buffers();
                pool.refuseNativeAllocation = size -> true;
                assertFailedForMemory(assertThrows(StorageIoException.class,
                        () -> blob.writeAt(0, new byte[LARGE]).await()), "write of " + LARGE + " bytes");
                assertFailedForMemory(assertThrows(StorageIoException.class,
                        () -> blob.writeAt(0, new byte[POOLED]).await()), "write of " + POOLED + " bytes");
                // A buffer the pool cannot get memory for: the call throws (JUnit's assertThrows rethrows an
                // OutOfMemoryError as unrecoverable), and the pool holds nothing for it.
                int outstanding = ctx.buffers().outstanding();
                for (int size : new int[] {LARGE, POOLED}) {
                    try {
                        ctx.buffers().allocate(size).close();
                        fail("a buffer of " + size + " bytes was allocated with native memory refused");
                    } catch (OutOfMemoryError refused) {
                        assertTrue(refused.getMessage().contains("native memory"), refused.getMessage());
                    }
                }
                assertEquals(outstanding, ctx.buffers().outstanding());
                pool.refuseNativeAllocation = null;
                byte[] large = new byte[LARGE];
                Arrays.fill(large, (byte) 7);
                blob.writeAt(0, large).await();
                blob.sync().await();
                assertArrayEquals(large, blob.readAt(0, LARGE).await(), "the worker goes on");
            }
            return null;
        });
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aReceiveAndASendThatGetNoNativeMemoryFailTypedAndPoisonOnlyTheirSide() {
        UringRunner.builder().workers(1).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await();
                    Connection client = ctx.dial(listener.localAddress()).await();
                    Connection server = listener.accept().await()) {
                boolean selects = Worker.current().ring().selectedBufferBytes() > 0;
                if (selects) {
                    // Sent before the pool refuses: the bytes wait in the socket for the receive below.
                    client.sink().send(new byte[] {9}).await();
                }
                WorkerBuffers pool = Worker.current().buffers();
                pool.refuseNativeAllocation = size -> true;
                if (selects) {
                    // The ring's provided buffers take the bytes: a receive needs no native memory of its own.
                    assertArrayEquals(new byte[] {9}, server.stream().recv(1).await(),
                            "a receive through a selected buffer needs none of the pool's memory");
                } else {
                    assertFailedForMemory(assertThrows(RecvFailedException.class,
                            () -> server.stream().recv(LARGE).await()), "receive of " + LARGE + " bytes");
                }
                assertFailedForMemory(assertThrows(SendFailedException.class,
                        () -> client.sink().send(new byte[LARGE]).await()), "send of " + LARGE + " bytes");
                pool.refuseNativeAllocation = null;
                assertThrows(ClosedException.class, () -> client.sink().send(new byte[] {1}).await(),
                        "a send that failed inside the runtime poisons its sink");
                if (!selects) {
                    assertThrows(ClosedException.class, () -> server.stream().recv(1).await(),
                            "a receive that failed inside the runtime poisons its stream");
                }
                server.sink().send(new byte[] {42}).await();
                assertArrayEquals(new byte[] {42}, client.stream().recv(1).await(), "the other sides go on");
            }
            return null;
        });
    }
}
