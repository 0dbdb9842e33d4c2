package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A plain thread peeks at a stream over and over while the stream's only fiber receives on it: that fiber turns its
 * worker's ring itself when it awaits (nothing else of the worker can run), so the receive's {@code prepare} and
 * {@code complete} run on the fiber inside the worker's critical section, and take the stream's buffered-bytes lock
 * that the peeking thread takes too. A contended lock there must not unmount the fiber: the run would fail with
 * "unmounted ... while it held the worker's state". Every message arrives whole and in order.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringPeekDuringInlineTurnsTest {
    private static final int MESSAGES = 20_000;
    private static final int SIZE = 48;

    @Test
    void aStreamPeekedFromAPlainThreadWhileItsFiberReceivesLosesNothingAndNeverUnmountsInsideTheWorker()
            throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong peeks = new AtomicLong();
        AtomicReference<Connection> shared = new AtomicReference<>();
        AtomicReference<Throwable> peekFailure = new AtomicReference<>();
        Thread peeker = Thread.ofPlatform().name("peeker").start(() -> {
            try {
                while (!stop.get()) {
                    Connection connection = shared.get();
                    if (connection != null) {
                        byte[] seen = connection.stream().peek(SIZE);
                        assertTrue(seen.length <= SIZE, "a peek returns at most what it asks: " + seen.length);
                        peeks.incrementAndGet();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable failure) {
                peekFailure.set(failure);
            }
        });
        int received;
        try {
            received = UringRunner.builder().workers(1).ringEntries(8).build().start(ctx -> {
                Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
                Operation<Connection> accepting = listener.accept();
                try (Connection sender = ctx.dial(listener.localAddress()).await();
                     Connection receiver = accepting.await()) {
                    shared.set(receiver);
                    byte[] message = new byte[SIZE];
                    int count = 0;
                    for (int i = 0; i < MESSAGES; i++) {
                        message[0] = (byte) i;
                        message[SIZE - 1] = (byte) (i >>> 8);
                        sender.sink().send(message).await();
                        byte[] got = receiver.stream().recv(SIZE).await();
                        assertArrayEquals(message, got, "message " + i);
                        count++;
                    }
                    shared.set(null);
                    return count;
                } finally {
                    listener.close();
                }
            });
        } finally {
            stop.set(true);
            peeker.join();
        }
        assertEquals(null, peekFailure.get(), "the peeking thread");
        assertEquals(MESSAGES, received);
        assertTrue(peeks.get() > 0, "the plain thread peeked while the fiber received");
    }
}
