package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Poll;
import dev.lockstep.uring.UringCrossThreadTest.Ledger;
import dev.lockstep.uring.UringCrossThreadTest.Party;
import dev.lockstep.uring.UringCrossThreadTest.TrackedWaker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Task handles polled from plain threads while their tasks end on three workers, some aborted by the polling
 * thread: the threaded side of a handle's lock-free outcome and of its waker list (the small pieces are
 * model-checked in runtime-core's {@code ModelCheckingTest} and {@code WaitListTest}). Every handle ends with its
 * task's value, its failure, or closed only if it was aborted; a poller woken is never left waiting; every waker copy
 * the runtime retained is woken or released exactly once, and none is used unretained.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringHandleThreadsTest {
    private static final long SEED = 0x4A4D1E5L;
    private static final int WORKERS = 3;
    private static final int THREADS = 3;
    private static final int WAVES = 40;
    private static final int TASKS = 30;

    /** How a polling thread treats a handle. */
    enum Mode {
        /** Poll with one party's waker until ready, waiting for each wake. */
        POLL,
        /** Poll twice with two wakers of the same party (one copy is kept), then until ready. */
        POLL_TWICE,
        /** Abort the task, then poll until ready. */
        ABORT_THEN_POLL
    }

    record Item(Handle<Integer> handle, int value, boolean fails, Mode mode) {
        static final Item STOP = new Item(null, 0, false, null);
    }

    @Test
    void handlesPolledAndAbortedFromPlainThreadsEndOnceAndConsumeEveryWakerCopyOnce() throws InterruptedException {
        Ledger ledger = new Ledger();
        List<BlockingQueue<Item>> queues = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            BlockingQueue<Item> queue = new LinkedBlockingQueue<>();
            queues.add(queue);
            threads.add(Thread.ofPlatform().name("poller-" + i).unstarted(() -> consume(queue, ledger)));
        }
        threads.forEach(Thread::start);
        try {
            UringRunner.builder().workers(WORKERS).ringEntries(8).build().start(ctx -> {
                Random random = new Random(SEED);
                for (int wave = 0; wave < WAVES; wave++) {
                    List<Handle<Integer>> started = new ArrayList<>();
                    for (int t = 0; t < TASKS; t++) {
                        int value = wave * TASKS + t;
                        boolean fails = random.nextInt(5) == 0;
                        long sleepNanos = random.nextInt(4) == 0 ? 0 : random.nextInt(500_000);
                        Handle<Integer> handle = ctx.child("task" + value).spawnOn(t % WORKERS, c -> {
                            if (sleepNanos > 0) {
                                c.sleep(Duration.ofNanos(sleepNanos));
                            }
                            if (fails) {
                                throw new IllegalStateException("task " + value + " fails");
                            }
                            return value;
                        });
                        started.add(handle);
                        Mode mode = Mode.values()[random.nextInt(Mode.values().length)];
                        queues.get(random.nextInt(THREADS)).add(new Item(handle, value, fails, mode));
                    }
                    for (Handle<Integer> handle : started) {
                        try {
                            handle.await();
                        } catch (RuntimeException endedOtherwise) {
                            // failed or aborted: the pollers check which
                        }
                    }
                }
                return null;
            });
        } finally {
            queues.forEach(queue -> queue.add(Item.STOP));
            for (Thread thread : threads) {
                thread.join();
            }
        }
        assertEquals(List.of(), List.copyOf(ledger.failures), "seed " + SEED);
        assertEquals(WAVES * TASKS, ledger.observed.get(), "every handle ended and was read");
        assertEquals(0, ledger.settledTwice.get(), "wakers woken or released twice");
        assertEquals(0, ledger.calledOnTheUnretainedOriginal.get(), "wakers used without being retained");
        assertEquals(ledger.retained.get(), ledger.settled.get(), "retained wakers never woken nor released");
        assertTrue(ledger.retained.get() > 0, "the test polled pending handles");
    }

    private static void consume(BlockingQueue<Item> queue, Ledger ledger) {
        while (true) {
            Item item;
            try {
                item = queue.take();
            } catch (InterruptedException interrupted) {
                return;
            }
            if (item == Item.STOP) {
                return;
            }
            try {
                consumeOne(item, ledger);
            } catch (RuntimeException | AssertionError failure) {
                ledger.failures.add("task " + item.value() + " by " + item.mode() + ": " + failure);
            }
        }
    }

    private static void consumeOne(Item item, Ledger ledger) {
        Party party = new Party();
        Handle<Integer> handle = item.handle();
        if (item.mode() == Mode.ABORT_THEN_POLL) {
            handle.abort();
        }
        Poll<Integer> result;
        if (item.mode() == Mode.POLL_TWICE) {
            result = handle.poll(new TrackedWaker(party, ledger, false));
            if (!result.isReady()) {
                result = handle.poll(new TrackedWaker(party, ledger, false));
            }
        } else {
            result = handle.poll(new TrackedWaker(party, ledger, false));
        }
        TrackedWaker waker = new TrackedWaker(party, ledger, false);
        while (!result.isReady()) {
            try {
                if (!party.woken.tryAcquire(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("a pending poll of task " + item.value() + " was not woken in 30 s");
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", interrupted);
            }
            result = handle.poll(waker);
        }
        ledger.observed.incrementAndGet();
        try {
            int value = result.get();
            if (item.fails()) {
                throw new AssertionError("a failing task gave " + value);
            }
            assertEquals(item.value(), value);
        } catch (ExitedException failed) {
            if (!item.fails()) {
                throw new AssertionError("task " + item.value() + " failed without failing: " + failed, failed);
            }
        } catch (ClosedException closed) {
            if (item.mode() != Mode.ABORT_THEN_POLL) {
                throw new AssertionError("task " + item.value() + " closed without an abort: " + closed, closed);
            }
        }
    }
}
