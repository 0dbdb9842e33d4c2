package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many seeds of a demo sweep ({@code ./lockstep explore}'s default: swarm faults, the mixed workload; or the
 * replicated workload, a 3-node Raft) one JVM runs per CPU second, after a warm-up and during it: a sweep is short,
 * so the JIT's warm-up is part of what a user waits for, and a long sweep's rate is the warmed-up one.
 *
 * <p>Two CPU figures per round. <em>Sweep CPU</em> is the CPU time of the threads that ran the seeds: with one
 * thread, the sweeping thread's own and that of the simulator threads that ran its seeds ({@link SweepCpu}), which
 * leaves out the JIT's compilers and the collector; it is the figure a seed costs once the code is compiled, and
 * the one {@code ./lockstep bench} reports. <em>Process CPU</em> is every thread's, with the compilers' and the
 * collector's share beside it.
 *
 * <p>Not a test: a program, run as {@code java -cp <demo's test and main classes and its classpath>
 * dev.lockstep.demo.SweepThroughput [seeds] [threads] [rounds] [first-seed] [workload]} (defaults 200, the number
 * of CPUs, 3, 1, {@code mixed}). Every round runs the same seeds; the first starts cold, so the rounds after it
 * show the warm rate. Each round prints a table row and a line {@code RESULT round=N seeds=S cpu=NANOS
 * process=NANOS wall=NANOS steps=STEPS failures=F
 * digests=HEX} for {@code ./lockstep bench}; {@code cpu} is -1 with more than
 * one thread (the sweep's threads are not all measured then); {@code digests} is a digest of every seed's audit
 * digest, the same for two builds that made the same decisions.
 */
public final class SweepThroughput {
    private SweepThroughput() {
    }

    /**
     * Runs the rounds and prints two lines per round.
     *
     * @param args seeds, threads, rounds, first seed, workload ({@link Workload#parse})
     * @throws Exception if the sweep fails
     */
    public static void main(String[] args) throws Exception {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        long first = args.length > 3 ? Long.parseLong(args[3]) : 1;
        Workload workload = args.length > 4 ? Workload.parse(args[4]) : Workload.MIXED;
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                ManagementFactory.getOperatingSystemMXBean();
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        System.out.printf(Locale.ROOT, "demo sweep, %s: %d seeds from %d, %d simulator thread(s), %d CPUs, Java %s%n",
                workload.cliName(), seeds, first, threads, Runtime.getRuntime().availableProcessors(),
                Runtime.version());
        System.out.printf(Locale.ROOT, "%5s %8s %8s %8s %8s %8s %12s %12s %14s %10s %8s %s%n", "round", "wall s",
                "sweep s", "CPU s", "JIT s", "GC s", "seeds/wall-s", "seeds/CPU-s", "seeds/sweep-s", "steps/seed",
                "sim-s", "failures");
        for (int round = 1; round <= rounds; round++) {
            Explorer.Settings settings = new Explorer.Settings(seeds, first, "swarm", workload, InjectedBug.NONE,
                    threads, false);
            long cpu0 = os.getProcessCpuTime();
            long sweep0 = SweepCpu.now();
            long jit0 = jit.getTotalCompilationTime();
            long gc0 = gcMillis();
            long wall0 = System.nanoTime();
            Explorer.Summary summary = Explorer.run(settings, new AtomicInteger(), result -> { });
            long wallNanos = System.nanoTime() - wall0;
            long sweepNanos = threads == 1 ? SweepCpu.now() - sweep0 : -1;
            long cpuNanos = os.getProcessCpuTime() - cpu0;
            double jitSeconds = (jit.getTotalCompilationTime() - jit0) / 1e3;
            double gc = (gcMillis() - gc0) / 1e3;
            long steps = summary.results().stream().mapToLong(Scenario.Result::schedulerSteps).sum();
            int run = summary.seedsRun();
            System.out.printf(Locale.ROOT, "%5d %8.2f %8.2f %8.2f %8.2f %8.2f %12.1f %12.1f %14.1f %10d %8.1f %d%n",
                    round, wallNanos / 1e9, sweepNanos / 1e9, cpuNanos / 1e9, jitSeconds, gc, run / (wallNanos / 1e9),
                    run / (cpuNanos / 1e9), sweepNanos > 0 ? run / (sweepNanos / 1e9) : Double.NaN,
                    steps / Math.max(1, run), summary.simulatedNanos() / 1e9, summary.failures().size());
            System.out.printf(Locale.ROOT, "RESULT round=%d seeds=%d cpu=%d process=%d wall=%d steps=%d failures=%d"
                            + " digests=%s%n", round, run, sweepNanos, cpuNanos, wallNanos, steps,
                    summary.failures().size(), digestOfDigests(summary));
        }
    }

    /**
     * One digest of every seed's audit digest, in seed order: two builds whose sweeps print the same one made the
     * same decisions in every seed.
     */
    private static String digestOfDigests(Explorer.Summary summary) throws java.security.NoSuchAlgorithmException {
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        for (Scenario.Result result : summary.results()) {
            sha.update((result.spec().seed() + " " + result.digest() + "\n").getBytes(
                    java.nio.charset.StandardCharsets.UTF_8));
        }
        return java.util.HexFormat.of().formatHex(sha.digest(), 0, 8);
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }
}
