package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.StorageIoException;
import dev.lockstep.Stream;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A multi-worker soak of the failure, closing and resource paths on io_uring, bounded to a few seconds per
 * test: closes racing awaits from plain threads and from fibers of other workers, accepts racing their
 * cancellation, requests that fail while the worker prepares them, and transfers at the length maximum. Each
 * test asserts that nothing hangs (its timeout), that every operation has exactly one outcome — none lost,
 * none twice — and that the fds and io_uring mappings return to where they were ({@link FdLeakCheck} checks the
 * class as well).
 */
@Timeout(60)
class UringFailureSoakTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int WORKERS = 4;
    private static final long SEED = 0x5EEDL;

    private static int fds() {
        return OpenDescriptors.fdCount();
    }

    private static int rings() {
        return OpenDescriptors.ringMappings().size();
    }

    /** How one round's operation is awaited and closed. */
    private enum Party { PLAIN_THREAD, FIBER_ELSEWHERE, SIBLING_FIBER }

    /**
     * Rounds of one operation that can never complete (a day-long sleep, or an accept nobody dials), awaited by
     * one party and closed by another, each a plain thread or a fiber of some worker. Every awaiter must end
     * with {@link ClosedException}: a close that only released the awaiter's waker would leave it parked, and
     * the test would hang.
     */
    @Test
    void closesRacingAwaitsFromThreadsAndOtherWorkers() throws Exception {
        int rounds = 2400;
        int batch = 24;
        int fdsBefore = fds();
        int ringsBefore = rings();
        ExecutorService plain = Executors.newFixedThreadPool(3, Thread.ofPlatform().name("plain-", 0).factory());
        AtomicInteger closed = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        try {
            UringRunner.builder().workers(WORKERS).ringEntries(8).build().start(ctx -> {
                SplittableRandom random = new SplittableRandom(SEED);
                try (Listener listener = ctx.bind(LOOPBACK).await()) {
                    for (int start = 0; start < rounds; start += batch) {
                        List<Handle<Void>> fibers = new ArrayList<>();
                        List<CompletableFuture<Void>> threads = new ArrayList<>();
                        for (int round = start; round < start + batch; round++) {
                            int owner = random.nextInt(WORKERS);
                            Party awaiter = Party.values()[random.nextInt(3)];
                            Party closer = Party.values()[random.nextInt(3)];
                            boolean accept = random.nextBoolean();
                            int spins = random.nextInt(64);
                            AtomicReference<Operation<?>> box = new AtomicReference<>();
                            Handle<Void> registrar = ctx.child("owner").spawnOn(owner, c -> {
                                box.set(accept ? listener.accept() : c.sleeper(Duration.ofDays(1)));
                                return null;
                            });
                            registrar.await();
                            Operation<?> operation = box.get();
                            Runnable await = () -> {
                                try {
                                    operation.await();
                                    completed.incrementAndGet();
                                } catch (ClosedException expected) {
                                    closed.incrementAndGet();
                                }
                            };
                            Runnable close = () -> {
                                for (int i = 0; i < spins; i++) {
                                    Thread.onSpinWait();
                                }
                                operation.close();
                            };
                            for (Object[] part : new Object[][] {{awaiter, await}, {closer, close}}) {
                                Party party = (Party) part[0];
                                Runnable body = (Runnable) part[1];
                                switch (party) {
                                    case PLAIN_THREAD -> threads.add(CompletableFuture.runAsync(body, plain));
                                    case FIBER_ELSEWHERE -> fibers.add(ctx.child("elsewhere")
                                            .spawnOn((owner + 1) % WORKERS, c -> {
                                                body.run();
                                                return null;
                                            }));
                                    case SIBLING_FIBER -> fibers.add(ctx.child("sibling").spawnOn(owner, c -> {
                                        body.run();
                                        return null;
                                    }));
                                }
                            }
                        }
                        for (Handle<Void> fiber : fibers) {
                            fiber.await();
                        }
                        for (CompletableFuture<Void> thread : threads) {
                            while (!thread.isDone()) {
                                ctx.sleep(Duration.ofMillis(1));
                            }
                            thread.join();
                        }
                    }
                }
                return null;
            });
        } finally {
            plain.shutdownNow();
        }
        assertEquals(rounds, closed.get(), "every awaiter was woken by its close");
        assertEquals(0, completed.get(), "nothing could complete");
        assertEquals(fdsBefore, fds());
        assertEquals(ringsBefore, rings());
    }

    /**
     * Accepts closed while dials race them, on every worker: an accept may complete first (its connection is
     * then the acceptor's, and closed by it), lose to its cancellation, or win against a cancellation already
     * submitted (the runtime closes the socket nobody will see). Each accept has exactly one outcome, and no
     * accepted socket is left open.
     */
    @Test
    void acceptsRacingCancels() {
        int rounds = 3000;
        int fdsBefore = fds();
        int ringsBefore = rings();
        int[] outcomes = UringRunner.builder().workers(WORKERS).ringEntries(8).build().start(ctx -> {
            SplittableRandom random = new SplittableRandom(SEED + 1);
            int[] counts = new int[2];
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                for (int round = 0; round < rounds; round++) {
                    int worker = random.nextInt(WORKERS);
                    int yields = random.nextInt(4);
                    Handle<Integer> acceptor = ctx.child("acceptor").spawnOn(worker, c -> {
                        Operation<Connection> accepting = listener.accept();
                        Handle<Void> dialer = c.child("dialer").spawnOn((worker + 1) % WORKERS, d -> {
                            d.dial(listener.localAddress()).await().close();
                            return null;
                        });
                        for (int i = 0; i < yields; i++) {
                            Thread.yield();
                        }
                        // Either the accept is ready and the connection is ours to close, or it is closed while
                        // its completion may be on its way (then the runtime must close what it accepted).
                        dev.lockstep.Poll<Connection> ready = accepting.poll(dev.lockstep.Waker.noop());
                        int accepted;
                        if (ready.isReady()) {
                            ready.get().close();
                            accepted = 1;
                        } else {
                            accepting.close();
                            assertThrows(ClosedException.class, accepting::await);
                            accepted = 0;
                        }
                        dialer.await();
                        return accepted;
                    });
                    counts[acceptor.await()]++;
                }
            }
            return counts;
        });
        assertEquals(rounds, outcomes[0] + outcomes[1], "one outcome per accept");
        assertEquals(fdsBefore, fds(), "no accepted socket was left open");
        assertEquals(ringsBefore, rings());
    }

    /** A request whose preparation throws, as an allocation too large for the heap would. */
    private static final class UnpreparableRequest extends Request {
        private final int number;

        UnpreparableRequest(int number) {
            this.number = number;
        }

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            throw new OutOfMemoryError("injected for request " + number);
        }

        @Override
        public String describe() {
            return "unpreparable request " + number;
        }
    }

    /**
     * Requests that fail while their worker prepares them, mixed with real writes and reads on every worker:
     * each failing one fails alone with a typed exception naming it, every real one completes with the right
     * bytes, and the workers go on.
     */
    @Test
    void requestsFailingInPrepareFailAloneOnEveryWorker(@TempDir Path storage) {
        int perWorker = 600;
        int fdsBefore = fds();
        int ringsBefore = rings();
        int failed = UringRunner.builder().workers(WORKERS).ringEntries(8).storage(storage).build().start(ctx -> {
            List<Handle<Integer>> workers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                int worker = w;
                workers.add(ctx.child("mixed").spawnOn(worker, c -> {
                    int typed = 0;
                    try (Blob blob = c.open("p", "b" + worker).await().blob()) {
                        for (int i = 0; i < perWorker; i++) {
                            int number = worker * perWorker + i;
                            Registration<Object> failing = Worker.current().register(new UnpreparableRequest(number));
                            Operation<Void> write = blob.writeAt(8L * i, longBytes(number));
                            StorageIoException failure = assertThrows(StorageIoException.class, failing::await);
                            assertTrue(failure.getMessage().contains("unpreparable request " + number),
                                    failure.getMessage());
                            assertInstanceOf(OutOfMemoryError.class, failure.getCause());
                            typed++;
                            write.await();
                            assertArrayEquals(longBytes(number), blob.readAt(8L * i, 8).await());
                        }
                    }
                    return typed;
                }));
            }
            int total = 0;
            for (Handle<Integer> worker : workers) {
                total += worker.await();
            }
            return total;
        });
        assertEquals(WORKERS * perWorker, failed);
        assertEquals(fdsBefore, fds());
        assertEquals(ringsBefore, rings());
    }

    private static byte[] longBytes(long value) {
        return java.nio.ByteBuffer.allocate(8).putLong(value).array();
    }

    /**
     * Reads and receives of exactly the maximum length on several workers at once are ordinary requests (a
     * read past the end fails typed; a receive fails typed when its peer leaves), and one byte more is refused
     * at the call; nothing is left allocated or open.
     */
    @Test
    void lengthsAtTheMaximum(@TempDir Path storage) {
        int fdsBefore = fds();
        int ringsBefore = rings();
        UringRunner.builder().workers(2).ringEntries(8).storage(storage).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "short").await().blob();
                 Listener listener = ctx.bind(LOOPBACK).await()) {
                blob.writeAt(0, new byte[] {1, 2}).await();
                for (int round = 0; round < 6; round++) {
                    List<Handle<Void>> parallel = new ArrayList<>();
                    for (int w = 0; w < 2; w++) {
                        parallel.add(ctx.child("max").spawnOn(w, c -> {
                            assertThrows(BlobInsufficientLengthException.class,
                                    () -> blob.readAt(0, Blob.MAX_TRANSFER_BYTES).await());
                            assertThrows(IllegalArgumentException.class,
                                    () -> blob.readAt(0, Blob.MAX_TRANSFER_BYTES + 1));
                            return null;
                        }));
                    }
                    Operation<Connection> accepting = listener.accept();
                    Connection client = ctx.dial(listener.localAddress()).await();
                    try (Connection server = accepting.await()) {
                        assertThrows(IllegalArgumentException.class,
                                () -> server.stream().recv(Stream.MAX_RECV_BYTES + 1));
                        Operation<byte[]> atMaximum = server.stream().recv(Stream.MAX_RECV_BYTES);
                        client.sink().send(new byte[1024]).await();
                        client.close();
                        assertThrows(RecvFailedException.class, atMaximum::await);
                    }
                    for (Handle<Void> handle : parallel) {
                        handle.await();
                    }
                }
            }
            return null;
        });
        assertEquals(fdsBefore, fds());
        assertEquals(ringsBefore, rings());
    }
}
