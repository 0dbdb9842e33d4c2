package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Fixture classes of {@link SweepTest}, run through the launcher (their names do not match the build's test
 * patterns). What they observe from outside the simulation (which thread set an instance up, how many instances were
 * set up and torn down) is kept here, in thread-safe static fields of this class, not of the fixtures: a fixture's
 * own non-final static field would make its sweep run one seed at a time.
 */
final class SweepFixtures {
    /** The names of the threads that ran {@code @BeforeEach}. */
    static final Set<String> setUpThreads = ConcurrentHashMap.newKeySet();
    static final AtomicInteger setUps = new AtomicInteger();
    /** Each seed's audit digest at the end of its workload, by seed. */
    static final java.util.Map<Long, String> digests = new ConcurrentHashMap<>();
    static final AtomicInteger tearDowns = new AtomicInteger();
    /** Counted down by each run's {@code @BeforeEach}, which then waits for it: two runs must be alive at once. */
    static final AtomicReference<CountDownLatch> twoAtOnce = new AtomicReference<>();

    private SweepFixtures() {
    }

    static void reset() {
        setUpThreads.clear();
        digests.clear();
        setUps.set(0);
        tearDowns.set(0);
        twoAtOnce.set(new CountDownLatch(2));
    }

    /**
     * A run whose events depend on the scheduler, the clock and the disk: three fibers that sleep seeded times,
     * write and sync their own blobs and read them back. Its digest differs from seed to seed.
     */
    static List<Integer> workload(Context ctx, RandomGenerator random) {
        List<Integer> finished = new ArrayList<>();
        List<Handle<Void>> children = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int child = i;
            long pause = 1 + random.nextInt(2_000);
            children.add(ctx.child("writer_" + i).spawn(c -> {
                try (Blob blob = c.open("p", "blob-" + child).await().blob()) {
                    for (int j = 0; j < 4; j++) {
                        c.sleep(Duration.ofNanos(pause * 1_000));
                        blob.writeAt(blob.length(), new byte[] {(byte) j}).await();
                        blob.sync().await();
                    }
                    assertTrue(blob.length() == 4, "four bytes written");
                }
                finished.add(child); // the fibers of a simulation take turns on one thread
                return null;
            }));
        }
        for (Handle<Void> child : children) {
            child.await();
        }
        return finished;
    }

    /**
     * Fails every third seed after the workload, with what its run saw: passing and failing seeds mixed whatever the
     * simulator's draws (a change to the simulator moves the digests, not which seeds fail).
     */
    static class MixedVerdictsFixture {
        @SimulationTest(seeds = 12)
        void failsEveryThirdSeed(Context ctx, RandomGenerator random, SimulationInfo info) {
            List<Integer> order = workload(ctx, random);
            digests.put(info.seed(), ctx.digest());
            assertTrue(info.seed() % 3 != 0, "a third seed; the writers finished in order " + order + " at "
                    + ctx.now());
        }
    }

    /** Fails every seed at the end of its workload, so every seed's failure carries the digest of its whole run. */
    static class FailsAtItsEndFixture {
        @SimulationTest(seeds = 12)
        void failsAtItsEnd(Context ctx, RandomGenerator random) {
            List<Integer> order = workload(ctx, random);
            throw new AssertionError("the end of the run; the writers finished in order " + order);
        }
    }

    /** Two threads; each run's set-up waits until two runs are alive at once, and records its thread. */
    static class TwoAtOnceFixture {
        private boolean setUp;

        @BeforeEach
        void setUp() throws InterruptedException {
            setUpThreads.add(Thread.currentThread().getName());
            setUps.incrementAndGet();
            CountDownLatch latch = twoAtOnce.get();
            latch.countDown();
            assertTrue(latch.await(40, TimeUnit.SECONDS), "no other seed's run was set up while this one waited");
            setUp = true;
        }

        @AfterEach
        void tearDown() {
            tearDowns.incrementAndGet();
        }

        @SimulationTest(seeds = 6, threads = 2)
        void runs(Context ctx, RandomGenerator random) {
            assertTrue(setUp, "@BeforeEach ran on the instance this run uses");
            workload(ctx, random);
        }
    }

    /** A set-up a subclass overrides: JUnit calls only the override. */
    abstract static class CountingBase {
        @BeforeEach
        void setUp() {
            throw new AssertionError("overridden: JUnit does not call it");
        }
    }

    /** Overrides its superclass's set-up, which each run must call once, as the override. */
    static class OverridingFixture extends CountingBase {
        @Override
        @BeforeEach
        void setUp() {
            setUps.incrementAndGet();
        }

        @SimulationTest(seeds = 4, threads = 2)
        void runs(Context ctx) {
        }
    }

    /** One instance for every seed: its seeds run one at a time, on JUnit's thread. */
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    static class PerClassFixture {
        @BeforeEach
        void setUp() {
            setUpThreads.add(Thread.currentThread().getName());
        }

        @SimulationTest(seeds = 4)
        void runs(Context ctx, RandomGenerator random) {
            workload(ctx, random);
        }
    }

    /** One instance for every seed, and two threads asked for: refused. */
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    static class PerClassOnTwoThreadsFixture {
        @SimulationTest(seeds = 4, threads = 2)
        void runs(Context ctx) {
        }
    }

    /** A static field every run would share, and two threads asked for: refused, naming the field. */
    static class StaticFieldOnTwoThreadsFixture {
        static int runs;

        @SimulationTest(seeds = 4, threads = 2)
        void counts(Context ctx) {
            runs++;
        }
    }

    /** A negative number of threads. */
    static class NegativeThreadsFixture {
        @SimulationTest(seeds = 4, threads = -2)
        void runs(Context ctx) {
        }
    }

    /**
     * Runs that would take a simulated hour of microsecond sleeps, far longer than their invocations' timeout: the
     * timeout must end the wait and abort the runs.
     */
    static class EndlessFixture {
        @SimulationTest(seeds = 3, threads = 2)
        @org.junit.jupiter.api.Timeout(1)
        void sleepsForever(Context ctx) {
            while (true) {
                ctx.sleep(Duration.ofNanos(1_000));
            }
        }
    }

    /** Twelve seeds on two threads, of which a test selects a few invocations. */
    static class SelectedFixture {
        @SimulationTest(seeds = 12, threads = 2)
        void runs(Context ctx, RandomGenerator random) {
            workload(ctx, random);
        }
    }
}
