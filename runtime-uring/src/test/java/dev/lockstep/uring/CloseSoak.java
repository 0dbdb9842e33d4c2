package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import dev.lockstep.Stream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the soaks of a stream closed by a plain thread share ({@link UringStreamCloseSoakTest},
 * {@link UringWaitingCallsCloseSoakTest}): the closer threads, each closing one stream once an echo loop has counted
 * down its echoes; the clients, which send numbered messages and check every echo; the first problem any task
 * reported; and the check after the run that nothing hung or was left behind (every closer ended, every buffer
 * given back on every worker, every fd closed). One soak per instance, made before its run.
 */
final class CloseSoak {
    private final int workers;
    private final int fdsBefore = OpenDescriptors.fdCount();
    private final AtomicReference<String> problem = new AtomicReference<>();
    /** Added by the run's root fiber; read by the test's thread once {@code start} has returned. */
    private final List<Thread> closers = new ArrayList<>();
    private final int[] outstandingBuffers;

    CloseSoak(int workers) {
        this.workers = workers;
        this.outstandingBuffers = new int[workers];
    }

    /**
     * Starts a plain thread that closes {@code stream} once {@code echoes} has counted down, or once {@code bound}
     * has passed: an echo loop counts every echo down and, however it ends, the rest, so the bound only keeps a
     * broken loop from holding the thread.
     */
    void closeAfter(String name, CountDownLatch echoes, Duration bound, Stream stream) {
        closers.add(Thread.ofPlatform().name(name).start(() -> {
            try {
                echoes.await(bound.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            stream.close();
        }));
    }

    /** Awaits every task's ending, a problem or null, and keeps the first problem. */
    void awaitEndings(List<Handle<String>> endings) {
        for (Handle<String> ending : endings) {
            String how = ending.await();
            if (how != null) {
                problem.compareAndSet(null, how);
            }
        }
    }

    /**
     * From the run's root once its tasks have ended: the buffers each worker has not had back. A buffer that a
     * closed receive still lent to the kernel comes back when the worker reaps the cancelled request's completion,
     * which may be a few ring turns after the task that held it ended; so each worker is asked until it has every
     * buffer back or {@link #BUFFER_RETURN_BOUND} has passed, and what is still out then is a leak.
     */
    void countBuffers(Context ctx) {
        for (int w = 0; w < workers; w++) {
            outstandingBuffers[w] = ctx.child("count").spawnOn(w, b -> {
                long deadline = System.nanoTime() + BUFFER_RETURN_BOUND.toNanos();
                int outstanding = b.buffers().outstanding();
                while (outstanding != 0 && System.nanoTime() < deadline) {
                    b.sleep(Duration.ofMillis(1));
                    outstanding = b.buffers().outstanding();
                }
                return outstanding;
            }).await();
        }
    }

    /** How long a worker may take to reap the completions that give its last lent buffers back. */
    private static final Duration BUFFER_RETURN_BOUND = Duration.ofSeconds(10);

    /** After the run: every closer ended, no task reported a problem, no buffer is out and no fd is left open. */
    void assertNothingLeft() throws InterruptedException {
        for (Thread closer : closers) {
            closer.join(Duration.ofSeconds(30));
            assertFalse(closer.isAlive(), closer.getName() + " did not finish");
        }
        assertNull(problem.get());
        for (int w = 0; w < workers; w++) {
            assertEquals(0, outstandingBuffers[w], "buffers of worker " + w + " not returned");
        }
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "fds leaked: " + OpenDescriptors.fds());
    }

    /**
     * Sends numbered messages of {@code size} bytes and checks each echo: {@code messages} of them, then closes;
     * or, with -1, until the server closes the connection (a receive that reads the end, or a send the peer reset),
     * the only way such a loop may end.
     *
     * @return null, or what went wrong
     */
    static String client(Connection client, int messages, int size) {
        try (client) {
            for (long n = 0; messages < 0 || n < messages; n++) {
                byte[] message = new byte[size];
                Arrays.fill(message, (byte) n);
                message[0] = (byte) (n >>> 8);
                client.sink().send(message).await();
                byte[] echo = client.stream().recv(size).await();
                if (!Arrays.equals(message, echo)) {
                    return "echo " + n + " differed from the message sent";
                }
            }
            return null;
        } catch (RecvFailedException | SendFailedException serverClosed) {
            return messages < 0 ? null : "a client of " + messages + " messages lost its connection: " + serverClosed;
        } catch (RuntimeException other) {
            return "a client ended with " + other;
        }
    }
}
