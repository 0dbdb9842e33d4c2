package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Operation;
import dev.lockstep.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A fiber that waits on a thread, executor or future the simulator does not own fails as a determinism leak that
 * names the cause and the user's line, with the same verdict on every run of the seed, however fast the outside
 * work is (here it finishes at once, the case that used to give a different verdict on half the runs): a
 * thread is caught when the fiber creates it, work for the common pool ({@code CompletableFuture.supplyAsync},
 * {@code commonPool().submit}) when the fiber hands it over. And a simulated operation polled, awaited or closed from a plain
 * thread is refused at the call.
 */
class ForeignWaitLeakTest {

    private static final int RUNS = 20;

    /** Runs {@code task} on one seed {@link #RUNS} times and returns the distinct failure messages. */
    private static Set<String> verdicts(long seed, Task<?> task) {
        Set<String> verdicts = new LinkedHashSet<>();
        for (int run = 0; run < RUNS; run++) {
            SimulationFailure failure = assertThrows(SimulationFailure.class,
                    () -> SimRunner.seeded(seed).start(task));
            verdicts.add(failure.getMessage());
        }
        return verdicts;
    }

    private static void assertOneVerdict(Set<String> verdicts, String cause) {
        assertEquals(1, verdicts.size(), "the same verdict on every run:\n" + String.join("\n", verdicts));
        String verdict = verdicts.iterator().next();
        assertTrue(verdict.contains("determinism leak"), verdict);
        assertTrue(verdict.contains(cause), "names the cause '" + cause + "': " + verdict);
        assertTrue(verdict.contains("ForeignWaitLeakTest.java:"), "names the user's line: " + verdict);
    }

    @Test
    void anExecutorsFutureGet() {
        assertOneVerdict(verdicts(1, ctx -> {
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                return pool.submit(() -> 42).get();
            } finally {
                pool.shutdownNow();
            }
        }), "an executor's worker thread");
    }

    @Test
    void threadJoin() {
        assertOneVerdict(verdicts(2, ctx -> {
            Thread helper = new Thread(() -> { });
            helper.start();
            helper.join();
            return null;
        }), "created a thread");
    }

    @Test
    void aBlockingQueueFedByAThread() {
        assertOneVerdict(verdicts(3, ctx -> {
            BlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
            Thread.ofPlatform().start(() -> queue.add(1));
            return queue.take();
        }), "created a thread");
    }

    @Test
    void aJdkVirtualThread() {
        assertOneVerdict(verdicts(6, ctx -> {
            Thread.ofVirtual().start(() -> { }).join();
            return null;
        }), "a JDK virtual thread");
    }

    @Test
    void completableFutureSupplyAsyncJoined() {
        assertOneVerdict(verdicts(9, ctx -> CompletableFuture.supplyAsync(() -> 42).join()),
                "handed work to the ForkJoinPool common pool (CompletableFuture.supplyAsync without an executor)");
    }

    @Test
    void completableFutureRunAsyncNeverAwaited() {
        assertOneVerdict(verdicts(10, ctx -> {
            CompletableFuture.runAsync(() -> { });
            ctx.sleep(Duration.ofMillis(1));
            return null;
        }), "(CompletableFuture.runAsync without an executor)");
    }

    @Test
    void theCommonPoolsFutureGet() {
        assertOneVerdict(verdicts(11, ctx -> ForkJoinPool.commonPool().submit(() -> 42).get()),
                "handed work to the ForkJoinPool common pool (a task for ForkJoinPool.commonPool()");
    }

    @Test
    void aForkJoinPoolOfItsOwn() {
        assertOneVerdict(verdicts(12, ctx -> {
            ForkJoinPool pool = new ForkJoinPool(2);
            try {
                return pool.submit(() -> 42).get();
            } finally {
                pool.shutdownNow();
            }
        }), "a ForkJoinPool worker thread");
    }

    @Test
    void aSimulatedOperationPolledOrAwaitedFromAPlainThreadIsRefusedAtTheCall() throws InterruptedException {
        AtomicReference<dev.lockstep.Handle<String>> handle = new AtomicReference<>();
        AtomicReference<Operation<dev.lockstep.OpenedBlob>> operation = new AtomicReference<>();
        List<Throwable> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        // Started outside the simulation: a thread created by a fiber would be a leak of its own.
        Thread outsider = Thread.ofPlatform().name("outsider").start(() -> {
            try {
                go.await();
            } catch (InterruptedException stop) {
                return;
            }
            for (Runnable call : List.<Runnable>of(() -> handle.get().poll(dev.lockstep.Waker.noop()),
                    () -> handle.get().await(), () -> operation.get().poll(dev.lockstep.Waker.noop()))) {
                try {
                    call.run();
                } catch (Throwable thrown) {
                    refused.add(thrown);
                }
            }
            done.countDown();
        });
        String result = SimRunner.seeded(8).start(ctx -> {
            handle.set(ctx.child("sleeper").spawn(c -> {
                c.sleep(Duration.ofMillis(5));
                return "slept";
            }));
            operation.set(ctx.open("partition", "blob"));
            go.countDown();
            while (done.getCount() > 0) {
                Thread.onSpinWait(); // wait in real time without parking: the thread's calls happen during this step
            }
            operation.get().await().blob().close();
            return handle.get().await();
        });
        outsider.join();
        assertEquals("slept", result, "the refused calls changed nothing in the run");
        assertEquals(3, refused.size(), "every call was refused: " + refused);
        List<String> calls = List.of("Handle.poll", "Handle.await", "Operation.poll");
        for (int i = 0; i < 3; i++) {
            Throwable thrown = refused.get(i);
            assertTrue(thrown instanceof IllegalStateException, "refused with IllegalStateException: " + thrown);
            assertTrue(thrown.getMessage().startsWith(calls.get(i) + " was called from thread 'outsider', outside the"
                    + " simulation"), thrown.getMessage());
        }
    }
}
