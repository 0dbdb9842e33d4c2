package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.ReadOptions;
import dev.lockstep.Poll;
import dev.lockstep.TimeoutException;
import dev.lockstep.Waker;
import dev.lockstep.engine.worker.Worker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operations of one worker polled, awaited and closed from other workers' fibers and from plain platform
 * threads, all at once, under load: sleeps, blob reads and writes and loopback receives on three workers with
 * small rings, consumed by three platform threads and one fiber per worker. What a user relies on:
 *
 * <ul>
 *   <li>every operation's result reaches exactly the one party that observes it, right, and only once (a
 *       second poll is {@link ClosedException}); none is lost (a lost wake would hang this test);</li>
 *   <li>every waker the runtime retained is woken or released exactly once, never both, never twice;</li>
 *   <li>closed writes still land (retained work); a closed receive poisons its stream or consumed its message,
 *       never skips or duplicates one;</li>
 *   <li>afterwards every worker's driver is empty ({@link Worker#admitted()} is 0, checked on that worker).</li>
 * </ul>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringCrossThreadTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final long SEED = 0x10C457E9L;

    private static final int WORKERS = 3;
    private static final int THREADS = 3;
    private static final int RING_ENTRIES = 8;
    private static final int WAVES = 100;
    private static final int CONNECTIONS = 2 * WORKERS;
    private static final int SLEEPS = 6;
    private static final int READS = 6;
    private static final int WRITES = 3;
    private static final int MESSAGE = 64;
    private static final int SOURCE_BYTES = 256 * 1024;
    private static final int WRITE_RECORD = 1024;

    @TempDir
    Path directory;

    enum Kind { SLEEP, READ, WRITE, RECV }

    /** How the consuming party treats an operation. */
    enum Mode {
        /** {@code await()}: a fiber parks, a thread parks. */
        AWAIT,
        /** Close without ever polling. */
        CLOSE,
        /** Poll once with a tracked waker; close if pending. */
        POLL_THEN_CLOSE,
        /** Poll with a tracked waker until ready, waiting for each wake (platform threads only). */
        POLL_UNTIL_READY
    }

    /** One operation handed from its owner to one consumer. A null operation tells the consumer to stop. */
    record Item(Operation<?> operation, Kind kind, Object expected, Mode mode, int owner, int wave, int connection,
                CountDownLatch consumed) {
        static final Item STOP = new Item(null, null, null, null, -1, -1, -1, null);

        @Override
        public String toString() {
            return kind + " of worker " + owner + " in wave " + wave + (kind == Kind.RECV ? " on connection "
                    + connection : "") + " by " + mode;
        }
    }

    /** What a consumer saw of one receive. */
    sealed interface RecvOutcome { }

    record Received(byte[] bytes) implements RecvOutcome { }

    record Refused() implements RecvOutcome { }

    record ClosedByConsumer() implements RecvOutcome { }

    /** The party that polls: every copy the runtime retains must be settled (woken or released) exactly once. */
    static final class Party {
        final Semaphore woken = new Semaphore(0);
    }

    static final class Ledger {
        final AtomicInteger retained = new AtomicInteger();
        final AtomicInteger settled = new AtomicInteger();
        final AtomicInteger settledTwice = new AtomicInteger();
        final AtomicInteger calledOnTheUnretainedOriginal = new AtomicInteger();
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger observed = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    }

    /** A waker whose retained copies count themselves in the ledger. */
    static final class TrackedWaker implements Waker {
        private final Party party;
        private final Ledger ledger;
        private final boolean copy;
        private final AtomicBoolean settled = new AtomicBoolean();

        TrackedWaker(Party party, Ledger ledger, boolean copy) {
            this.party = party;
            this.ledger = ledger;
            this.copy = copy;
        }

        private void settle() {
            if (!copy) {
                ledger.calledOnTheUnretainedOriginal.incrementAndGet();
            } else if (settled.compareAndSet(false, true)) {
                ledger.settled.incrementAndGet();
            } else {
                ledger.settledTwice.incrementAndGet();
            }
        }

        @Override
        public void wake() {
            settle();
            party.woken.release();
        }

        @Override
        public void release() {
            settle();
        }

        @Override
        public Waker retain() {
            ledger.retained.incrementAndGet();
            return new TrackedWaker(party, ledger, true);
        }

        @Override
        public boolean willWake(Waker other) {
            return other instanceof TrackedWaker tracked && tracked.party == party;
        }
    }

    private static byte[] bytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] message(int connection, int wave) {
        return bytes(MESSAGE, SEED * 31 + connection * 1_000L + wave);
    }

    private static long writeOffset(int wave, int worker, int index) {
        return ((long) (wave * WORKERS + worker) * WRITES + index) * WRITE_RECORD;
    }

    private static byte[] writeRecord(int wave, int worker, int index) {
        return bytes(WRITE_RECORD, SEED ^ writeOffset(wave, worker, index));
    }

    @Test
    void operationsPolledAndClosedFromOtherThreadsAndWorkersAllCompleteOnceAndLeaveEveryDriverEmpty()
            throws InterruptedException {
        Ledger ledger = new Ledger();
        byte[] source = bytes(SOURCE_BYTES, SEED);
        AtomicReferenceArray<RecvOutcome> outcomes = new AtomicReferenceArray<>(CONNECTIONS * WAVES);
        List<BlockingQueue<Item>> threadQueues = new ArrayList<>();
        List<BlockingQueue<Item>> fiberQueues = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            threadQueues.add(new LinkedBlockingQueue<>());
        }
        for (int w = 0; w < WORKERS; w++) {
            fiberQueues.add(new LinkedBlockingQueue<>());
        }
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            BlockingQueue<Item> queue = threadQueues.get(i);
            threads.add(Thread.ofPlatform().name("consumer-thread-" + i).unstarted(
                    () -> consume(queue, true, ledger, outcomes)));
        }

        int[] admittedAtTheEnd = UringRunner.builder().workers(WORKERS).ringEntries(RING_ENTRIES)
                .storage(directory.resolve("store")).build().start(ctx -> {
            Blob readSource = ctx.open("p", "source").await().blob();
            Blob writeTarget = ctx.open("p", "target").await().blob();
            readSource.writeAt(0, source).await();
            readSource.sync().await();
            Listener listener = ctx.bind(LOOPBACK).await();
            Connection[] receivers = new Connection[CONNECTIONS];
            Connection[] senders = new Connection[CONNECTIONS];
            for (int k = 0; k < CONNECTIONS; k++) {
                Operation<Connection> accepting = listener.accept();
                senders[k] = ctx.dial(listener.localAddress()).await();
                receivers[k] = accepting.await();
            }
            threads.forEach(Thread::start);
            List<Handle<Void>> fiberConsumers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                BlockingQueue<Item> queue = fiberQueues.get(w);
                fiberConsumers.add(ctx.child("consumer" + w).spawnOn(w, c -> {
                    consume(queue, false, ledger, outcomes);
                    return null;
                }));
            }

            for (int wave = 0; wave < WAVES; wave++) {
                int recvsPerWave = CONNECTIONS;
                CountDownLatch consumed = new CountDownLatch(WORKERS * (SLEEPS + READS + WRITES) + recvsPerWave);
                List<Handle<Void>> producers = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    int worker = w;
                    int thisWave = wave;
                    producers.add(ctx.child("producer" + w + "x" + wave).spawnOn(w, c -> {
                        produce(c, worker, thisWave, readSource, writeTarget, receivers, senders, source,
                                threadQueues, fiberQueues, consumed, ledger);
                        return null;
                    }));
                }
                for (Handle<Void> producer : producers) {
                    producer.await();
                }
                // Each wave is consumed completely before the next sends its messages: one receive per stream
                // at a time, as a stream requires.
                consumed.await();
            }

            threadQueues.forEach(queue -> queue.add(Item.STOP));
            fiberQueues.forEach(queue -> queue.add(Item.STOP));
            for (Thread thread : threads) {
                thread.join();
            }
            for (Handle<Void> consumer : fiberConsumers) {
                consumer.await();
            }

            writeTarget.sync().await();
            byte[] written = writeTarget.readAt(0, (int) writeOffset(WAVES, 0, 0)).await();
            for (int wave = 0; wave < WAVES; wave++) {
                for (int w = 0; w < WORKERS; w++) {
                    for (int i = 0; i < WRITES; i++) {
                        int at = (int) writeOffset(wave, w, i);
                        assertArrayEquals(writeRecord(wave, w, i), Arrays.copyOfRange(written, at, at + WRITE_RECORD),
                                "write " + i + " of worker " + w + " in wave " + wave + " (seed " + SEED + ")");
                    }
                }
            }
            for (int k = 0; k < CONNECTIONS; k++) {
                receivers[k].close();
                senders[k].close();
            }
            listener.close();
            readSource.close();
            writeTarget.close();

            // Closed operations retire asynchronously (a cancellation waits for the kernel): let each worker
            // turn until its driver is empty, and report what it holds if it never gets there.
            int[] admitted = new int[WORKERS];
            for (int w = 0; w < WORKERS; w++) {
                int worker = w;
                admitted[w] = ctx.child("drain" + w).spawnOn(w, c -> {
                    Worker here = Worker.current();
                    assertEquals(worker, here.index());
                    for (int turn = 0; turn < 10_000 && here.admitted() > 0; turn++) {
                        c.sleep(Duration.ofMillis(1));
                    }
                    return here.admitted();
                }).await();
            }
            return admitted;
        });

        assertEquals(List.of(), List.copyOf(ledger.failures), "seed " + SEED);
        assertArrayEquals(new int[WORKERS], admittedAtTheEnd, "requests left in each worker's driver");
        assertEquals(ledger.created.get(), ledger.observed.get() + ledger.closed.get(),
                "every operation observed or closed exactly once");
        assertEquals(WAVES * (WORKERS * (SLEEPS + READS + WRITES) + CONNECTIONS), ledger.created.get());
        assertEquals(0, ledger.settledTwice.get(), "wakers woken or released twice");
        assertEquals(0, ledger.calledOnTheUnretainedOriginal.get(), "wakers used without being retained");
        assertEquals(ledger.retained.get(), ledger.settled.get(), "retained wakers never woken nor released");
        assertTrue(ledger.retained.get() > 0, "the test polled pending operations");
        verifyReceives(outcomes);
    }

    private static void produce(Context ctx, int worker, int wave, Blob readSource, Blob writeTarget,
                                Connection[] receivers, Connection[] senders, byte[] source,
                                List<BlockingQueue<Item>> threadQueues, List<BlockingQueue<Item>> fiberQueues,
                                CountDownLatch consumed, Ledger ledger) {
        assertEquals(worker, Worker.current().index());
        Random random = new Random(SEED + 7919L * wave + worker);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < SLEEPS; i++) {
            Operation<Void> sleep = ctx.sleeper(Duration.ofNanos(random.nextInt(2_000_000)));
            items.add(new Item(sleep, Kind.SLEEP, null, null, worker, wave, -1, consumed));
        }
        for (int i = 0; i < READS; i++) {
            int length = 1 + random.nextInt(8192);
            int offset = random.nextInt(SOURCE_BYTES - length);
            items.add(new Item(readSource.readAt(offset, length), Kind.READ,
                    Arrays.copyOfRange(source, offset, offset + length), null, worker, wave, -1, consumed));
        }
        for (int i = 0; i < WRITES; i++) {
            items.add(new Item(writeTarget.writeAt(writeOffset(wave, worker, i), writeRecord(wave, worker, i)),
                    Kind.WRITE, null, null, worker, wave, -1, consumed));
        }
        for (int k = worker; k < CONNECTIONS; k += WORKERS) {
            items.add(new Item(receivers[k].stream().recv(MESSAGE), Kind.RECV, message(k, wave), null, worker, wave,
                    k, consumed));
        }
        for (Item item : items) {
            ledger.created.incrementAndGet();
            // Anyone but the owner's own fiber consumer: platform threads and the other workers' fibers.
            int consumer = random.nextInt(THREADS + WORKERS - 1);
            boolean toThread = consumer < THREADS;
            int fiberWorker = toThread ? -1 : (consumer - THREADS + worker + 1) % WORKERS;
            Mode mode = chooseMode(random, item.kind, toThread);
            Item handed = new Item(item.operation, item.kind, item.expected, mode, worker, wave, item.connection,
                    consumed);
            (toThread ? threadQueues.get(consumer) : fiberQueues.get(fiberWorker)).add(handed);
        }
        // The receives are out, most of them pending: now the messages they wait for.
        for (int k = 0; k < CONNECTIONS; k++) {
            if ((k + 1) % WORKERS == worker) {
                senders[k].sink().send(message(k, wave)).await();
            }
        }
    }

    private static Mode chooseMode(Random random, Kind kind, boolean toThread) {
        int roll = random.nextInt(100);
        // Receives are closed rarely: a closed receive may poison its stream for the rest of the test.
        int closing = kind == Kind.RECV ? 4 : 30;
        if (roll < closing / 2) {
            return Mode.CLOSE;
        }
        if (roll < closing) {
            return Mode.POLL_THEN_CLOSE;
        }
        return toThread && roll % 2 == 0 ? Mode.POLL_UNTIL_READY : Mode.AWAIT;
    }

    private static void consume(BlockingQueue<Item> queue, boolean onThread, Ledger ledger,
                                AtomicReferenceArray<RecvOutcome> outcomes) {
        while (true) {
            Item item;
            try {
                item = queue.take();
            } catch (InterruptedException interrupted) {
                ledger.failures.add("consumer interrupted");
                return;
            }
            if (item.operation == null) {
                return;
            }
            try {
                consumeOne(item, onThread, ledger, outcomes);
            } catch (Throwable thrown) {
                ledger.failures.add(item + ": " + thrown);
            } finally {
                item.consumed.countDown();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void consumeOne(Item item, boolean onThread, Ledger ledger,
                                   AtomicReferenceArray<RecvOutcome> outcomes) {
        Operation<Object> operation = (Operation<Object>) item.operation;
        Poll<Object> result;
        switch (item.mode) {
            case AWAIT -> {
                Object value;
                try {
                    value = operation.await();
                } catch (RuntimeException failure) {
                    result = Poll.failed(failure);
                    break;
                }
                result = Poll.ready(value);
            }
            case CLOSE -> {
                operation.close();
                closed(item, ledger, outcomes);
                return;
            }
            case POLL_THEN_CLOSE -> {
                result = operation.poll(new TrackedWaker(new Party(), ledger, false));
                if (!result.isReady()) {
                    operation.close();
                    closed(item, ledger, outcomes);
                    return;
                }
            }
            case POLL_UNTIL_READY -> {
                Party party = new Party();
                TrackedWaker waker = new TrackedWaker(party, ledger, false);
                while (!(result = operation.poll(waker)).isReady()) {
                    party.woken.acquireUninterruptibly();
                }
            }
            default -> throw new IllegalStateException("mode " + item.mode);
        }
        ledger.observed.incrementAndGet();
        // A result is delivered once: polling again after it was observed is refused, never a second value.
        Poll<Object> again = operation.poll(Waker.noop());
        assertTrue(again.isReady(), "a second poll after the result must not wait");
        assertThrows(ClosedException.class, again::get, "a second poll after the result");
        operation.close();
        check(item, result, outcomes);
        if (onThread) {
            assertNull(Worker.current(), "a platform consumer is on no worker");
        } else {
            assertFalse(Worker.current().index() == item.owner, "fiber consumers poll foreign operations");
        }
    }

    private static void closed(Item item, Ledger ledger, AtomicReferenceArray<RecvOutcome> outcomes) {
        ledger.closed.incrementAndGet();
        if (item.kind == Kind.RECV) {
            outcomes.set(item.connection * WAVES + item.wave, new ClosedByConsumer());
        }
    }

    private static void check(Item item, Poll<Object> result, AtomicReferenceArray<RecvOutcome> outcomes) {
        switch (item.kind) {
            case SLEEP, WRITE -> assertNull(result.get());
            case READ -> assertArrayEquals((byte[]) item.expected, (byte[]) result.get());
            case RECV -> {
                RecvOutcome outcome;
                try {
                    outcome = new Received((byte[]) result.get());
                } catch (ClosedException poisoned) {
                    outcome = new Refused();
                }
                outcomes.set(item.connection * WAVES + item.wave, outcome);
            }
        }
    }

    /**
     * One receive per stream per wave, each for the message of that wave. A receive closed while pending
     * either poisoned its stream (every later receive refused) or had already taken its message; nothing else.
     */
    private static void verifyReceives(AtomicReferenceArray<RecvOutcome> outcomes) {
        for (int k = 0; k < CONNECTIONS; k++) {
            boolean maybePoisoned = false;
            boolean poisoned = false;
            for (int wave = 0; wave < WAVES; wave++) {
                RecvOutcome outcome = outcomes.get(k * WAVES + wave);
                String where = "connection " + k + ", wave " + wave + " (seed " + SEED + ")";
                switch (outcome) {
                    case Received received -> {
                        assertFalse(poisoned, "a receive succeeded on a poisoned stream: " + where);
                        assertArrayEquals(message(k, wave), received.bytes(), "message skipped or repeated: " + where);
                        maybePoisoned = false;
                    }
                    case Refused refused -> {
                        assertTrue(poisoned || maybePoisoned, "refused without a closed receive before: " + where);
                        poisoned = true;
                    }
                    case ClosedByConsumer closed -> maybePoisoned = !poisoned;
                    case null -> throw new AssertionError("no outcome recorded: " + where);
                }
            }
        }
    }

    @Test
    void aRingOfOneHeldByAWaitingReceiveStillTimesOutQueuedWorkAndAForeignCloseFreesIt() throws Exception {
        byte[] data = bytes(4096, 3);
        UringRunner.builder().workers(2).ringEntries(1).storage(directory.resolve("ring-of-one")).build()
                .start(ctx -> {
                    try (Blob blob = ctx.open("p", "b").await().blob();
                         Listener listener = ctx.bind(LOOPBACK).await()) {
                        blob.writeAt(0, data).await();
                        // The accept takes worker 0's only slot until a dial arrives: dial from worker 1.
                        Operation<Connection> accepting = listener.accept();
                        InetSocketAddress address = listener.localAddress();
                        try (Connection client = ctx.child("dialer").spawnOn(1, c -> c.dial(address).await()).await();
                             Connection server = accepting.await()) {
                            // The only ring slot: a receive that waits for bytes nobody sends.
                            Operation<byte[]> hog = server.stream().recv(1);
                            assertFalse(hog.poll(Waker.noop()).isReady());
                            // DONT_CACHE: a read the page cache would answer at the call never queues for the ring.
                            Operation<byte[]> queued = blob.readAt(0, data.length, ReadOptions.DONT_CACHE);
                            assertThrows(TimeoutException.class,
                                    () -> ctx.timeout(Duration.ofMillis(10), queued::await));
                            ctx.sleep(Duration.ofMillis(1));
                            // Closed from a plain thread, the receive is cancelled in the kernel; the slot frees.
                            Thread closer = Thread.ofPlatform().start(hog::close);
                            closer.join();
                            assertArrayEquals(data, blob.readAt(0, data.length, ReadOptions.DONT_CACHE).await());
                            // And from a fiber of the other worker, a read of this worker's is awaited.
                            Operation<byte[]> foreign = blob.readAt(0, 16, ReadOptions.DONT_CACHE);
                            byte[] seen = ctx.child("other").spawnOn(1, c -> foreign.await()).await();
                            assertArrayEquals(Arrays.copyOf(data, 16), seen);
                            assertInstanceOf(ClosedException.class,
                                    assertThrows(ClosedException.class, () -> server.stream().recv(1).await()));
                            client.sink().send(new byte[] {1}).await();
                        }
                    }
                    return null;
                });
    }
}
