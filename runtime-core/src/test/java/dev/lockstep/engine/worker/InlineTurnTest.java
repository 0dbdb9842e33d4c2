package dev.lockstep.engine.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.Fibers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A fiber alone on its worker whose request completes at submission (a read the page cache holds: here the
 * scripted kernel, which answers file I/O inside {@code enter}) submits it itself and takes the result without
 * parking ({@link InlineTurns#turn}); with other fibers runnable it parks, so that their requests go to the
 * kernel together; and a fiber that keeps completing in place cannot keep its worker's timers from firing.
 */
class InlineTurnTest {
    private static final int READS = 640;
    private static final byte[] DATA = {1, 2, 3, 4, 5, 6, 7, 8};

    @Test
    void aLoneFibersReadThatCompletesAtSubmissionNeitherParksNorWaitsForAServiceTurn() {
        ScriptedKernel kernel = new ScriptedKernel();
        kernel.autoCompleteFiles();
        int[] counted = new int[3];
        new ThreadedRunner(kernel, 1, 8, "/store", "inline").start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(0, DATA).await();
                Fiber self = Fibers.current();
                int mounts = self.mounts();
                int enters = kernel.enters();
                int fiberEnters = kernel.fiberEnters();
                for (int i = 0; i < READS; i++) {
                    assertArrayEquals(DATA, blob.readAt(0, DATA.length).await(), "read " + i);
                }
                counted[0] = self.mounts() - mounts;
                counted[1] = kernel.enters() - enters;
                counted[2] = kernel.fiberEnters() - fiberEnters;
            }
            return null;
        });
        // Without inline turns every read parks once and resumes once: READS mounts. With them, the fiber parks
        // only when the turns allowed between two service turns are used up, once per 33 reads.
        int parksAllowed = READS / InlineTurns.PER_SERVICE + 2;
        assertTrue(counted[0] <= parksAllowed, counted[0] + " mounts for " + READS + " reads, at most " + parksAllowed);
        assertTrue(counted[2] >= READS - parksAllowed, counted[2] + " of " + READS + " reads submitted by the fiber");
        // One enter per read, plus the service turns between the batches of inline turns.
        assertTrue(counted[1] <= READS + 2 * parksAllowed, counted[1] + " enters for " + READS + " reads");
    }

    @Test
    void fibersRunnableTogetherStillShareOneEnter() {
        ScriptedKernel kernel = new ScriptedKernel();
        kernel.autoCompleteFiles();
        int fibers = 32;
        int readsEach = 40;
        int[] enters = new int[1];
        new ThreadedRunner(kernel, 1, 64, "/store", "inline").start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(0, DATA).await();
                int before = kernel.enters();
                List<Handle<Void>> readers = new ArrayList<>();
                for (int f = 0; f < fibers; f++) {
                    readers.add(ctx.child("reader" + f).spawn(child -> {
                        for (int i = 0; i < readsEach; i++) {
                            assertArrayEquals(DATA, blob.readAt(0, DATA.length).await());
                        }
                        return null;
                    }));
                }
                for (Handle<Void> reader : readers) {
                    reader.await();
                }
                enters[0] = kernel.enters() - before;
            }
            return null;
        });
        // Each loop turn runs every reader once; only the last of them, with nothing else runnable, turns the ring,
        // and that turn submits all of the turn's reads. One enter per read would be fibers * readsEach.
        int reads = fibers * readsEach;
        assertTrue(enters[0] <= reads / 4, enters[0] + " enters for " + reads + " reads from " + fibers + " fibers");
    }

    @Test
    void aFiberCompletingInPlaceForeverStillLetsItsWorkersTimersFire() throws Exception {
        ScriptedKernel kernel = new ScriptedKernel();
        kernel.autoCompleteFiles();
        AtomicBoolean slept = new AtomicBoolean();
        AtomicBoolean finished = new AtomicBoolean();
        // Time moves without waking the ring: only a service turn of the worker sees it and fires the timer.
        Thread time = new Thread(() -> {
            while (!finished.get()) {
                kernel.advanceSilently(Duration.ofMillis(1).toNanos());
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "time");
        int[] reads = new int[1];
        try {
            new ThreadedRunner(kernel, 1, 8, "/store", "inline").start(ctx -> {
                try (Blob blob = ctx.open("p", "b").await().blob()) {
                    blob.writeAt(0, DATA).await();
                    Handle<Void> sleeper = ctx.child("sleeper").spawn(child -> {
                        child.sleep(Duration.ofMillis(5));
                        slept.set(true);
                        return null;
                    });
                    time.start();
                    while (!slept.get()) {
                        blob.readAt(0, DATA.length).await();
                        reads[0]++;
                    }
                    sleeper.await();
                }
                return null;
            });
        } finally {
            finished.set(true);
            time.join();
        }
        assertTrue(slept.get());
        assertTrue(reads[0] > 0, "the reader ran while the sleeper slept");
        assertEquals(false, time.isAlive());
    }
}
