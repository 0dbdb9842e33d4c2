package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import dev.lockstep.Task;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Everything that would let the operating system decide when a fiber resumes fails the run at once, with a
 * message naming the fiber, the cause and the line of user code, and the replay line.
 */
@org.junit.jupiter.api.Tag("adversarial")
class DeterminismLeakTest {

    private static SimulationFailure leak(long seed, Task<?> task) {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.seeded(seed).start(task));
        assertTrue(failure.getMessage().contains("determinism leak"), failure.getMessage());
        assertTrue(failure.getMessage().contains("replay: SimRunner.of(SimConfig.builder().seed(" + seed + "L)"),
                failure.getMessage());
        assertTrue(failure.getMessage().contains("DeterminismLeakTest"), "names the user's line: "
                + failure.getMessage());
        return failure;
    }

    @Test
    void threadSleepInAFiber() {
        SimulationFailure failure = leak(1, ctx -> {
            Thread.sleep(200);
            return null;
        });
        assertTrue(failure.getMessage().contains("Thread.sleep"), failure.getMessage());
    }

    /**
     * A park so short that the JDK's timer often ends it before the simulator looks at the step's end, or while
     * the fiber is still parking (its continuation then comes back on the simulator's own thread): the same
     * verdict, at the same step, and the same digest on every run of the seed.
     */
    @ParameterizedTest
    @ValueSource(longs = {1_000, 1_000_000})
    void aShortTimedParkIsTheSameLeakOnEveryRun(long parkNanos) {
        Set<String> outcomes = new TreeSet<>();
        for (int run = 0; run < 12; run++) {
            SimRunner runner = SimRunner.seeded(21);
            SimulationFailure failure = assertThrows(SimulationFailure.class, () -> runner.start(ctx -> {
                ctx.open("p", "before").await().blob().close();
                if (parkNanos >= 1_000_000) {
                    Thread.sleep(parkNanos / 1_000_000);
                } else {
                    LockSupport.parkNanos(parkNanos);
                }
                ctx.open("p", "after").await().blob().close();
                return null;
            }), "run " + run);
            assertTrue(failure.getMessage().contains("timed park"), failure.getMessage());
            outcomes.add(runner.digest() + " " + runner.stats() + " " + failure.getMessage());
        }
        assertEquals(1, outcomes.size(), String.join("\n", outcomes));
    }

    @Test
    void aTimedWaitOnAFutureInAFiber() {
        SimulationFailure failure = leak(2, ctx -> new CompletableFuture<String>().get(1, TimeUnit.SECONDS));
        assertTrue(failure.getMessage().contains("timed park"), failure.getMessage());
    }

    @Test
    void aMonitorHeldAcrossAnAwaitAndContendedByAnotherFiber() {
        Object lock = new Object();
        SimulationFailure failure = leak(3, ctx -> {
            Handle<Void> holder = ctx.child("holder").spawn(c -> {
                synchronized (lock) {
                    c.sleep(Duration.ofMillis(10));
                }
                return null;
            });
            Handle<Void> contender = ctx.child("contender").spawn(c -> {
                c.sleep(Duration.ofMillis(1));
                synchronized (lock) {
                    return null;
                }
            });
            holder.await();
            contender.await();
            return null;
        });
        assertTrue(failure.getMessage().contains("monitor"), failure.getMessage());
        assertTrue(failure.getMessage().contains("contender"), "names the blocked fiber: " + failure.getMessage());
    }

    @Test
    void aMonitorHeldAcrossAnAwaitButNeverContendedIsFine() {
        Object lock = new Object();
        assertEquals("done", SimRunner.seeded(4).start(ctx -> {
            synchronized (lock) {
                ctx.sleep(Duration.ofMillis(10));
            }
            return "done";
        }));
    }

    @Test
    void aLockBetweenFibersIsDeterministicAndFine() {
        ReentrantLock lock = new ReentrantLock();
        String first = lockRun(lock);
        assertEquals(first, lockRun(lock));
    }

    private static String lockRun(ReentrantLock lock) {
        SimRunner runner = SimRunner.seeded(5);
        runner.start(ctx -> {
            Handle<Void> a = ctx.child("a").spawn(c -> {
                lock.lock();
                try {
                    c.sleep(Duration.ofMillis(3));
                } finally {
                    lock.unlock();
                }
                return null;
            });
            Handle<Void> b = ctx.child("b").spawn(c -> {
                c.sleep(Duration.ofMillis(1));
                lock.lock(); // parks on the lock; the other fiber's unlock resumes it on the simulator's thread
                lock.unlock();
                return null;
            });
            a.await();
            b.await();
            return null;
        });
        return runner.digest();
    }

    /**
     * A blocking read of a real socket parks the fiber in the JDK's I/O poller: a named leak, the same on every run
     * of the seed, and the run ends (it used to spin: the poller's wake-ups kept the aborted fiber running).
     */
    @Test
    void aRealSocketInAFiber() throws IOException {
        java.util.Set<String> verdicts = new java.util.LinkedHashSet<>();
        for (int run = 0; run < 20; run++) {
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                SimulationFailure failure = leak(6, ctx -> {
                    Socket socket = new Socket();
                    socket.connect(server.getLocalSocketAddress());
                    return socket.getInputStream().read();
                });
                assertTrue(failure.getMessage().contains("real I/O"), failure.getMessage());
                verdicts.add(failure.getMessage().replace(String.valueOf(server.getLocalPort()), "PORT"));
                // Let the abandoned fiber's read end.
                server.accept().close();
            }
        }
        assertEquals(1, verdicts.size(), "the same verdict on every run:\n" + String.join("\n", verdicts));
    }

    /**
     * A stray unpark from a thread outside the simulation (what a JDK lock shared with another simulation in the
     * JVM can leave behind) of a fiber waiting in Lockstep is no leak and changes nothing: the fiber is resumed
     * when Lockstep wakes it, as if the unpark had never come, so the run has the digest it has without it.
     */
    @Test
    void aStrayUnparkOfAFiberWaitingInLockstepChangesNothing() {
        for (int run = 0; run < 5; run++) {
            assertEquals(sleeperRun(false), sleeperRun(true), "the same digest with and without the stray unpark");
        }
    }

    private static String sleeperRun(boolean intrude) {
        // The intruder is started outside the simulation (a thread a fiber creates is a leak of its own).
        java.util.concurrent.atomic.AtomicReference<Thread> sleeper = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean unparked = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        Thread intruder = Thread.ofPlatform().name("intruder").start(() -> {
            try {
                go.await();
            } catch (InterruptedException stop) {
                return;
            }
            if (intrude) {
                LockSupport.unpark(sleeper.get());
            }
            unparked.set(true);
        });
        SimRunner runner = SimRunner.seeded(7);
        String result = runner.start(ctx -> {
            Handle<String> sleeping = ctx.child("sleeper").spawn(c -> {
                sleeper.set(Thread.currentThread());
                c.sleep(Duration.ofHours(1));
                return "slept " + c.now();
            });
            ctx.sleep(Duration.ofMillis(1));
            go.countDown();
            while (!unparked.get()) {
                Thread.onSpinWait(); // wait in real time without parking: the unpark happens during this step
            }
            return sleeping.await();
        });
        intruder.interrupt();
        assertTrue(result.startsWith("slept "), result);
        return result + " " + runner.digest();
    }

    @Test
    void theSimulationsControlOutsideItsTasksIsRefused() {
        dev.lockstep.Context[] escaped = new dev.lockstep.Context[1];
        SimControl[] control = new SimControl[1];
        SimRunner.seeded(8).start(ctx -> {
            escaped[0] = ctx;
            control[0] = SimRunner.control(ctx);
            return null;
        });
        IllegalStateException outside = assertThrows(IllegalStateException.class,
                () -> SimRunner.control(escaped[0]));
        assertTrue(outside.getMessage().contains("running simulation"), outside.getMessage());
        // After the run the ticker reads the time the run ended at.
        assertTrue(control[0].ticker().getAsLong() > 0);
    }

    @Test
    void touchingTheSimulationFromAnotherThreadFailsTheRun() {
        java.util.concurrent.atomic.AtomicReference<SimControl> control = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean touched = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                go.await();
                control.get().ticker().getAsLong();
            } catch (IllegalStateException expected) {
                // the run fails instead
            } catch (InterruptedException stop) {
                return;
            }
            touched.set(true);
        });
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.seeded(9).start(ctx -> {
            control.set(SimRunner.control(ctx));
            go.countDown();
            while (!touched.get()) {
                Thread.onSpinWait();
            }
            ctx.sleep(Duration.ofMillis(1));
            return null;
        }));
        assertTrue(failure.getMessage().contains("SimControl.ticker was called from thread"), failure.getMessage());
        other.interrupt();
    }
}
