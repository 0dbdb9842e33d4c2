package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.engine.EnterFailingKernel;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.KernelException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real io_uring ring whose {@code io_uring_enter} fails once, injected between the engine and the ring: the
 * run fails through {@code Runner.start} with that error — it used to end the worker thread silently and
 * leave {@code start} waiting forever — after every worker retired in order, with the receive and accept
 * that were in flight cancelled and every fd and ring mapping released ({@link FdLeakCheck} checks the class).
 */
class UringRingFailureTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    @Timeout(30)
    void anInjectedEnterFailureFailsStartAfterTheWorkersRetired(@TempDir Path storage) {
        EnterFailingKernel kernel = new EnterFailingKernel(new UringKernel());
        int fdsBefore = OpenDescriptors.fdCount();
        AtomicInteger closedAwaits = new AtomicInteger();
        ThreadedRunner runner = new ThreadedRunner(kernel, 2, 8, storage.toString(), "injected");
        KernelException failure = assertThrows(KernelException.class, () -> runner.start(ctx -> {
            assertEquals(0, Worker.current().index());
            try (Blob blob = ctx.open("p", "b").await().blob();
                 Listener listener = ctx.bind(LOOPBACK).await()) {
                blob.writeAt(0, new byte[] {1, 2, 3}).await();
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepting.await()) {
                    Operation<byte[]> receiving = server.stream().recv(4);
                    Operation<Connection> acceptingAgain = listener.accept();
                    kernel.failNextEnters.set(1);
                    Worker.current().nudge();
                    try {
                        receiving.await();
                    } catch (ClosedException aborted) {
                        closedAwaits.incrementAndGet();
                    }
                    assertThrows(ClosedException.class, acceptingAgain::await);
                }
            }
            return null;
        }));
        assertTrue(failure.getMessage().contains("io_uring_enter") && failure.getMessage().contains("injected failure"),
                failure.getMessage());
        assertEquals(1, closedAwaits.get(), "the root was aborted while it waited");
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "every fd the run opened is closed");
    }
}
