package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.sim.SimControl;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Test classes that {@link SimulationExtensionTest} runs through the JUnit Platform launcher (their names do not
 * match the build's test patterns, so the build does not run them on its own). What they saw is kept in a static
 * list, read back by the test: a synchronized one, as the seeds of a sweep run at once on several threads.
 */
final class Fixtures {
    static final List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());

    private Fixtures() {
    }

    static void reset() {
        seen.clear();
    }

    /** Passes under every seed; records seed and runtime. */
    static class PassingFixture {
        @SimulationTest(seeds = 5, firstSeed = 10)
        void records(Context ctx, SimulationInfo info, RandomGenerator random) {
            ctx.sleep(Duration.ofMillis(1 + random.nextInt(10)));
            seen.add("seed " + info.seed() + " simulated=" + info.simulated());
        }
    }

    /** Fails under seed 3 only. */
    static class FailingFixture {
        @SimulationTest(seeds = 5)
        void failsOnSeedThree(Context ctx, SimulationInfo info) {
            ctx.sleep(Duration.ofMillis(5));
            seen.add("seed " + info.seed());
            assertTrue(info.seed() != 3, "the value was wrong");
        }
    }

    /** Pinned to seed 42. */
    static class PinnedFixture {
        @SimulationTest(seeds = 50)
        @Seed(42)
        void pinned(SimulationInfo info) {
            seen.add("seed " + info.seed());
        }
    }

    /** Crashes between lifetimes; what is synced survives. */
    static class CrashFixture {
        /** Bytes whose sync returned in this seed's earlier lifetimes: the model the disk must keep. */
        private long acknowledgedBytes;

        @SimulationTest(seeds = 3, crashes = 2, crashWithinMillis = 50)
        void survives(Context ctx, SimulationInfo info, SimControl control) {
            seen.add("seed " + info.seed() + " lifetime " + info.lifetime() + " restarts " + control.restarts());
            if (info.lifetime() == 0) {
                acknowledgedBytes = 0;
            }
            try (Blob blob = ctx.open("p", "counter").await().blob()) {
                long length = blob.length();
                // Every byte whose sync returned survived; a byte whose sync the crash cut may have too.
                assertTrue(length >= acknowledgedBytes && length <= info.lifetime(),
                        "one synced byte per earlier lifetime that finished its sync: " + acknowledgedBytes
                                + " acknowledged, " + length + " found");
                blob.writeAt(length, new byte[] {1}).await();
                blob.sync().await();
                acknowledgedBytes = length + 1;
            }
            ctx.sleep(Duration.ofSeconds(10)); // cut by the crash, except in the last lifetime
        }
    }

    /** Runs once on runtime-uring as well. */
    static class UringFixture {
        @SimulationTest(seeds = 2, uring = true)
        void everywhere(Context ctx, SimulationInfo info) {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(0, "hello".getBytes(StandardCharsets.UTF_8)).await();
                blob.sync().await();
                assertEquals("hello", new String(blob.readAt(0, 5).await(), StandardCharsets.UTF_8));
            }
            seen.add((info.simulated() ? "sim" : "uring") + " seed " + info.seed());
        }
    }

    /** Nondeterministic on purpose: the wall clock decides how long it sleeps. */
    static class NondeterministicFixture {
        @SimulationTest(seeds = 1, checkDeterminism = true)
        void leaks(Context ctx) {
            ctx.sleep(Duration.ofNanos(1 + System.nanoTime() % 1_000_000_000L));
        }
    }

    /**
     * The README's pattern: a model of what was acknowledged kept in a field across one seed's lifetimes, checked
     * for determinism. The rerun must get a fresh instance (and its own @BeforeEach), or its model starts full.
     */
    static class ModelInFieldFixture {
        private final List<Integer> acknowledged = new ArrayList<>();
        private boolean setUp;

        @org.junit.jupiter.api.BeforeEach
        void setUp() {
            setUp = true;
        }

        @SimulationTest(seeds = 3, crashes = 2, crashWithinMillis = 20, checkDeterminism = true)
        void acknowledgedBytesSurvive(Context ctx, SimulationInfo info) {
            assertTrue(setUp, "@BeforeEach ran on this instance");
            seen.add("seed " + info.seed() + " lifetime " + info.lifetime());
            try (Blob blob = ctx.open("p", "log").await().blob()) {
                long length = blob.length();
                assertTrue(length >= acknowledged.size(), "lost bytes: acknowledged " + acknowledged.size()
                        + ", recovered " + length);
                acknowledged.clear();
                for (int i = 0; i < length; i++) {
                    acknowledged.add(i);
                }
                for (int i = 0; i < 10; i++) {
                    blob.writeAt(blob.length(), new byte[] {(byte) i}).await();
                    blob.sync().await();
                    acknowledged.add(acknowledged.size());
                    ctx.sleep(Duration.ofMillis(1));
                }
            }
        }
    }

    /**
     * Fails in a later lifetime: its appends are not synced, so a crash loses acknowledged bytes. The body is a
     * static method so that a test can replay it from the failure's printed line with a model of its own.
     */
    static class CrashingFailureFixture {
        private final List<Integer> acknowledged = new ArrayList<>();

        @SimulationTest(seeds = 4, firstSeed = 5, faults = "torn-writes", crashes = 3, crashWithinMillis = 20)
        void forgetsToSync(Context ctx, SimulationInfo info) {
            unsyncedAppends(ctx, acknowledged);
        }

        static Void unsyncedAppends(Context ctx, List<Integer> acknowledged) {
            try (Blob blob = ctx.open("p", "log").await().blob()) {
                long length = blob.length();
                assertTrue(length >= acknowledged.size(), "lost bytes: acknowledged " + acknowledged.size()
                        + ", recovered " + length);
                acknowledged.clear();
                for (int i = 0; i < length; i++) {
                    acknowledged.add(i);
                }
                for (int i = 0; i < 40; i++) {
                    blob.writeAt(blob.length(), new byte[] {(byte) i}).await(); // no sync: the bug
                    acknowledged.add(acknowledged.size());
                    ctx.sleep(Duration.ofMillis(1));
                }
            }
            return null;
        }
    }

    /** Opens a blob and never closes it: a leak, which fails each seed unless leak checking is off. */
    static Void leaksABlob(Context ctx) {
        ctx.open("p", "forgotten").await().blob();
        return null;
    }

    static class LeakingFixture {
        @SimulationTest(seeds = 2)
        void forgetsToClose(Context ctx) {
            leaksABlob(ctx);
        }
    }

    static class LeakingUncheckedFixture {
        @SimulationTest(seeds = 2, checkLeaks = false)
        void forgetsToClose(Context ctx) {
            leaksABlob(ctx);
            seen.add("leaked");
        }
    }

    /**
     * Opens blobs until one is refused or {@code most} are open, closes them, then opens and writes one more:
     * "opened N; refused: the refusal's message" (or "refused: none").
     */
    static String opensUntilRefused(Context ctx, int most) {
        List<Blob> open = new ArrayList<>();
        String refused = "none";
        try {
            while (open.size() < most) {
                try {
                    open.add(ctx.open("p", "blob" + open.size()).await().blob());
                } catch (dev.lockstep.StorageIoException full) {
                    refused = full.getMessage();
                    break;
                }
            }
        } finally {
            for (Blob blob : open) {
                blob.close();
            }
        }
        try (Blob again = ctx.open("p", "after").await().blob()) {
            again.writeAt(0, new byte[] {1}).await();
        }
        return "opened " + open.size() + "; refused: " + refused;
    }

    /** Under a limit of 20 descriptors. */
    static class OpenFileLimitFixture {
        @SimulationTest(seeds = 3, openFileLimit = 20)
        void opensUntilRefused(Context ctx) {
            seen.add(Fixtures.opensUntilRefused(ctx, 40));
        }
    }

    /** Without a limit. */
    static class NoOpenFileLimitFixture {
        @SimulationTest(seeds = 1)
        void opensUntilRefused(Context ctx) {
            seen.add(Fixtures.opensUntilRefused(ctx, 40));
        }
    }

    /** Needs 30 blobs open at once under a limit of 20: fails, and its replay line must carry the limit. */
    static class OpenFileLimitFailureFixture {
        @SimulationTest(seeds = 1, firstSeed = 6, openFileLimit = 20)
        void needsThirtyBlobs(Context ctx) {
            thirtyBlobs(ctx);
        }

        static Void thirtyBlobs(Context ctx) {
            String outcome = Fixtures.opensUntilRefused(ctx, 30);
            assertTrue(outcome.startsWith("opened 30;"), outcome);
            return null;
        }
    }

    /** A limit no descriptor can be under. */
    static class BadOpenFileLimitFixture {
        @SimulationTest(seeds = 1, openFileLimit = 3)
        void never(Context ctx) {
            seen.add("ran");
        }
    }

    /** Values no sweep can run with, one per method: each is refused before any seed runs, naming the value. */
    static class BadValuesFixture {
        @SimulationTest(seeds = 2, firstSeed = Long.MAX_VALUE)
        void pastTheLargestSeed(Context ctx) {
            seen.add("ran");
        }

        @SimulationTest(seeds = 1, workers = 0)
        void noWorkers(Context ctx) {
            seen.add("ran");
        }

        @SimulationTest(seeds = 1, crashes = -1)
        void negativeCrashes(Context ctx) {
            seen.add("ran");
        }

        @SimulationTest(seeds = 1, crashes = 1, crashWithinMillis = 0)
        void noCrashWindow(Context ctx) {
            seen.add("ran");
        }
    }
}
