package dev.lockstep.conformance;

import static dev.lockstep.Turns.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.ReadOptions;
import dev.lockstep.Turns;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * Close means close, and results own their resources until observed, on every runtime.
 *
 * <p>Closing an operation wakes whoever else awaits it — a sibling fiber, a fiber on another worker — with
 * {@link ClosedException}; closing a listener or a stream closes its pending accept or receive the same way,
 * and a closed listener accepts nothing more. A result holding an fd that nobody will observe — its operation
 * closed, its awaiting task aborted — is closed by the runtime, so the fd count returns to where it was.
 * Before, each of these either left the awaiter parked for ever (the simulator reported a stall) or kept the
 * fd open.
 */
@Group(ReadmeGroup.CLOSING)
class ClosingConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A task that awaits {@code operation} and reports how that ended. */
    private static Handle<String> awaiter(Context ctx, int worker, Operation<?> operation) {
        return ctx.child("awaiter").spawnOn(worker, c -> {
            try {
                operation.await();
                return "completed";
            } catch (ClosedException closed) {
                return "closed";
            }
        });
    }

    /** Waits until the awaiter's poll is pending on the operation, so the close really races an awaiter. */
    private static void letItWait(Context ctx) {
        for (int i = 0; i < 16; i++) {
            Turns.reschedule();
        }
        ctx.sleep(java.time.Duration.ofMillis(1));
    }

    /**
     * Closing an operation another fiber awaits — on this worker or the last one — wakes it with Closed. A closed
     * receive poisons its stream, so each awaiter gets a connection of its own.
     */
    @Conformance
    void testClosingAnOperationWakesItsAwaiter(Runtimes rt) {
        int workers = rt.config().workers();
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                for (int worker : java.util.stream.IntStream.of(0, workers - 1).distinct().toArray()) {
                    Operation<Connection> accepted = listener.accept();
                    try (Connection client = ctx.dial(listener.localAddress()).await();
                         Connection server = accepted.await()) {
                        Operation<byte[]> receive = server.stream().recv(1);
                        Handle<String> waiting = awaiter(ctx, worker, receive);
                        letItWait(ctx);
                        assertFalse(waiting.isDone(), "nothing was sent: the awaiter waits");
                        receive.close();
                        assertEquals("closed", waiting.await(), "the awaiter on worker " + worker + " woke");
                    }
                }
            }
            return null;
        });
    }

    /** Closing an operation from another worker than the one awaiting it wakes the awaiter too. */
    @Conformance
    void testAnOperationClosedFromAnotherWorkerWakesItsAwaiter(Runtimes rt) {
        int workers = rt.config().workers();
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepting = listener.accept();
            Handle<String> waiting = awaiter(ctx, 0, accepting);
            letItWait(ctx);
            Handle<Void> closer = ctx.child("closer").spawnOn(workers - 1, c -> {
                accepting.close();
                return null;
            });
            closer.await();
            assertEquals("closed", waiting.await());
            listener.close();
            return null;
        });
    }

    /**
     * Closing a listener closes its pending accept and wakes the awaiter; the closed listener accepts nothing
     * more: dials fail once its socket is gone, and no fd is left behind.
     */
    @Conformance
    void testClosingAListenerCancelsItsAcceptAndAcceptsNothingMore(Runtimes rt) {
        Probe probe = rt.probe();
        rt.runner().start(ctx -> {
            Set<Integer> before = probe.openFds(ctx);
            Listener listener = ctx.bind(ANY_PORT).await();
            InetSocketAddress address = listener.localAddress();
            Operation<Connection> accepting = listener.accept();
            Handle<String> waiting = awaiter(ctx, 0, accepting);
            letItWait(ctx);
            listener.close();
            assertEquals("closed", waiting.await(), "the pending accept was closed with its listener");
            assertThrows(ClosedException.class, listener::accept);
            until(ctx, "the listening socket is closed", () -> probe.openFds(ctx).equals(before));
            assertThrows(dev.lockstep.ConnectionFailedException.class, () -> ctx.dial(address).await());
            until(ctx, "the failed dial's socket is closed", () -> probe.openFds(ctx).equals(before));
            return null;
        });
    }

    /** Closing a stream closes its pending receive and wakes the awaiter; the sink keeps working. */
    @Conformance
    void testClosingAStreamCancelsItsReceive(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            Operation<byte[]> receive = client.stream().recv(4);
            Handle<String> waiting = awaiter(ctx, 0, receive);
            letItWait(ctx);
            client.stream().close();
            assertEquals("closed", waiting.await(), "the pending receive was closed with its stream");
            assertThrows(ClosedException.class, () -> client.stream().recv(1));
            client.sink().send(bytes("ping")).await();
            assertArrayEquals(bytes("ping"), peer.stream().recv(4).await());
            client.close();
            peer.close();
            listener.close();
            return null;
        });
    }

    /**
     * A completed accept, dial, bind or open whose result nobody observed is closed with its operation: the
     * fds it held are released (before, the accepted socket stayed open: fd count 15 to 16 on io_uring).
     */
    @Conformance
    void testUnobservedResultsAreClosedWithTheirOperations(Runtimes rt) {
        Probe probe = rt.probe();
        rt.runner().start(ctx -> {
            Set<Integer> before = probe.openFds(ctx);
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepting = listener.accept();
            Operation<Connection> dialling = ctx.dial(listener.localAddress());
            Operation<Listener> binding = ctx.bind(ANY_PORT);
            Operation<OpenedBlob> opening = ctx.open("unobserved", "blob");
            // Two listeners, both ends of the connection and the blob: every result is ready, none observed.
            until(ctx, "every result is ready", () -> probe.openFds(ctx).size() >= before.size() + 5);
            accepting.close();
            dialling.close();
            binding.close();
            opening.close();
            listener.close();
            until(ctx, "every fd is released", () -> probe.openFds(ctx).equals(before));
            return null;
        });
    }

    /**
     * A task aborted while it awaits an accept: whether the abort comes before the accept completed, after it
     * completed but before the task took it (the runtime closes the socket), or after (the task's
     * try-with-resources does), no fd is left behind.
     */
    @Conformance
    void testAnAbortedAcceptLeavesNoFdBehind(Runtimes rt) {
        Probe probe = rt.probe();
        rt.runner().start(ctx -> {
            Set<Integer> before = probe.openFds(ctx);
            Listener listener = ctx.bind(ANY_PORT).await();
            Handle<Void> holder = ctx.child("holder").spawn(c -> {
                try (Connection accepted = listener.accept().await()) {
                    c.sleep(java.time.Duration.ofDays(1));
                }
                return null;
            });
            letItWait(ctx);
            Connection client = ctx.dial(listener.localAddress()).await();
            holder.abort();
            assertThrows(ClosedException.class, holder::await);
            client.close();
            listener.close();
            until(ctx, "every fd is released", () -> probe.openFds(ctx).equals(before));
            return null;
        });
    }

    /**
     * Reads that completed inside the run and escaped {@code start} unobserved — answered at the call from the page
     * cache, or through the ring — read {@link ClosedException} afterwards, as the Runner's contract says. Before,
     * a read answered at the call still gave its bytes.
     */
    @Conformance(leavesOpen = "its reads and their buffer escape start")
    void testCompletedReadsThatEscapedStartAreClosed(Runtimes rt) {
        List<Operation<?>> escaped = rt.runner().start(ctx -> {
            try (Blob blob = ctx.open("escape", "blob").await().blob()) {
                blob.writeAt(0, bytes("abcd")).await();
                blob.sync().await();
                assertArrayEquals(bytes("abcd"), blob.readAt(0, 4).await(), "the bytes are there to read");
                IoBuffer buffer = ctx.buffers().allocate(4096);
                List<Operation<?>> reads = List.of(blob.readAt(0, 4), blob.readInto(0, buffer, 0, 4),
                        blob.readAt(0, 4, ReadOptions.DONT_CACHE));
                ctx.sleep(java.time.Duration.ofMillis(10));
                return reads;
            }
        });
        for (Operation<?> read : escaped) {
            assertThrows(ClosedException.class, read::await, read + " escaped start");
        }
    }
}
