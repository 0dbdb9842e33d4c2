package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Runner;
import dev.lockstep.sim.InvalidConfigException;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.LinkProfile;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.uring.UringRunner;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Misconfigured runners on both runtimes: typed refusals naming the value, no hang, no runner used up. */
class RunnerConfigEdgeTest {

    /** workers(Integer.MAX_VALUE) built fine and start threw OutOfMemoryError ("Requested array size"). */
    @Test
    void uringRefusesAHugeWorkerCountAtBuildNamingIt() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> UringRunner.builder().workers(Integer.MAX_VALUE).build());
        assertTrue(refused.getMessage().contains("2147483647"), refused.getMessage());
        IllegalArgumentException sim = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.builder().workers(Integer.MAX_VALUE).build());
        assertTrue(sim.getMessage().contains("2147483647"), sim.getMessage());
    }

    /** A start refused because it came from a task used the runner up: its next, legal start threw Closed. */
    @Test
    void aStartRefusedInsideATaskDoesNotUseTheRunnerUp() {
        Runner[] fresh = {UringRunner.builder().workers(1).build(), SimRunner.seeded(2)};
        for (Runner runner : fresh) {
            assertThrows(IllegalStateException.class,
                    () -> SimRunner.seeded(1).start(ctx -> runner.start(c -> 2)));
            assertEquals(Integer.valueOf(3), runner.<Integer>start(c -> 3), runner.getClass().getSimpleName());
        }
    }

    /**
     * A runner whose rings are refused late (EMFILE: the most workers, RLIMIT_NOFILE 150) fails its start with the
     * kernel's refusal and leaves no thread or descriptor behind. Run in a child JVM with a low fd limit; that the
     * workers started after the refusal skip their rings is runtime-core's {@code EngineTest}.
     */
    @Test
    void aLateRingRefusalFailsNamingItAndLeavesNoThreadOrFd() throws Exception {
        String cp = System.getProperty("java.class.path");
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", "ulimit -n 150 && exec \"$0\" \"$@\"", javaBin, "-ea",
                "--enable-native-access=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                "-cp", cp, LateRefusal.class.getName(), Integer.toString(UringRunner.MAX_WORKERS))
                .redirectErrorStream(true);
        Process child = builder.start();
        boolean ended = child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor();
        }
        String out = new String(child.getInputStream().readAllBytes());
        assertTrue(ended, "did not end in 60 s: " + out);
        assertTrue(out.contains("refused: dev.lockstep.kernel.KernelException"), out);
        assertTrue(out.contains("EMFILE"), out);
        assertTrue(out.contains("threads same fds same"), out);
    }

    /** The child of {@link #aLateRingRefusalFailsNamingItAndLeavesNoThreadOrFd}. */
    static final class LateRefusal {
        static long fds() throws Exception {
            try (var list = Files.list(Path.of("/proc/self/fd"))) {
                return list.count();
            }
        }

        public static void main(String[] args) throws Exception {
            UringRunner.builder().workers(1).build().start(ctx -> 1);
            int threads = Thread.activeCount();
            long fds = fds();
            try {
                UringRunner.builder().workers(Integer.parseInt(args[0])).ringEntries(1).build().start(ctx -> 1);
                System.out.println("started");
            } catch (RuntimeException refused) {
                System.out.println("refused: " + refused);
            }
            // The runner joins its workers and closes their rings before start returns; the poll only lets a
            // thread of the JDK's own that the run woke settle, and is bounded well inside the parent's 60 s.
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while ((Thread.activeCount() > threads || fds() > fds) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            System.out.println("threads " + (Thread.activeCount() == threads ? "same" : Thread.activeCount() + " vs "
                    + threads) + " fds " + (fds() == fds ? "same" : fds() + " vs " + fds));
        }
    }

    /**
     * A link or kernel latency near Long.MAX_VALUE overflowed {@code now + delay}: a dial connected after about
     * 2 ms, a blob's open completed at once. Latencies above a day are now refused, naming the value; a day's
     * latency (the most) is a dial that does not connect within the run's 10 s.
     */
    @Test
    void aHugeLatencyIsRefusedAndTheLargestDoesNotWrapToNoDelay() {
        InvalidConfigException link = assertThrows(InvalidConfigException.class,
                () -> new LinkProfile(Long.MAX_VALUE, 0));
        assertTrue(link.getMessage().contains(Long.toString(Long.MAX_VALUE)), link.getMessage());
        InvalidConfigException kernel = assertThrows(InvalidConfigException.class,
                () -> KernelBehavior.DEFAULT.withLatency(Long.MAX_VALUE - 1, Long.MAX_VALUE));
        assertTrue(kernel.getMessage().contains(Long.toString(Long.MAX_VALUE)), kernel.getMessage());

        SimConfig config = SimConfig.builder().workers(2).timeLimit(Duration.ofSeconds(10))
                .network(NetworkConfig.DEFAULT.withDefaultLink(new LinkProfile(LinkProfile.MAX_LATENCY_NANOS, 0)))
                .build();
        Instant[] connectedAt = {null};
        try {
            SimRunner.of(config).start(ctx -> {
                var listener = ctx.bind(new InetSocketAddress("127.0.0.1", 7000)).await();
                var accept = ctx.spawn(c -> listener.accept().await());
                try (var conn = ctx.dial(new InetSocketAddress("127.0.0.1", 7000)).await();
                     var other = accept.await()) {
                    connectedAt[0] = ctx.now();
                }
                listener.close();
                return null;
            });
        } catch (RuntimeException expected) {
            // the run's time limit or the dial's timeout: either is fine
        }
        assertEquals(null, connectedAt[0], "connected at " + connectedAt[0] + " over a link of a day");
    }

    /**
     * The same storage option, a root whose parent is missing: the simulator creates every missing directory,
     * runtime-uring failed with StorageIoException ENOENT (its javadoc: "created if missing").
     */
    @Test
    void aStorageRootWithMissingParentsWorksOnBothRuntimes() throws Exception {
        Path base = Files.createTempDirectory("nested-root");
        String sim = SimRunner.of(SimConfig.builder().storageRoot("/a/b/c").build())
                .start(ctx -> "ran");
        assertEquals("ran", sim);
        String uring = UringRunner.builder().workers(1).storage(base.resolve("a/b/c")).build().start(ctx -> "ran");
        assertEquals("ran", uring);
    }
}
