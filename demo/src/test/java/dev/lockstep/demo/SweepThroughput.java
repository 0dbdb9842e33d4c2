package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many seeds of the demo's sweep ({@code ./lockstep explore}'s default: swarm faults, the mixed workload) one
 * JVM runs per second of wall-clock time and per second of CPU, after a warm-up and during it: a sweep is short,
 * so the JIT's warm-up is part of what a user waits for, and a long sweep's rate is the warmed-up one. Each
 * figure is what the process used (every thread: the simulators, the JIT's compilers, the collector), with the
 * compilers' and the collector's share beside it.
 *
 * <p>Not a test: a program, run as {@code java -cp <demo's test and main classes and its classpath>
 * dev.lockstep.demo.SweepThroughput [seeds] [threads] [rounds] [first-seed]} (defaults 200, the number of CPUs,
 * 3, 1). The first round starts cold; every round runs the same seeds, so the rounds after it show the warm rate.
 * It uses only {@link Explorer#run}, so it runs unchanged against older builds of the demo.
 */
public final class SweepThroughput {
    private SweepThroughput() {
    }

    /**
     * Runs the rounds and prints one line per round.
     *
     * @param args seeds, threads, rounds, first seed
     * @throws Exception if the sweep fails
     */
    public static void main(String[] args) throws Exception {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        long first = args.length > 3 ? Long.parseLong(args[3]) : 1;
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                ManagementFactory.getOperatingSystemMXBean();
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        System.out.printf(Locale.ROOT, "demo sweep: %d seeds from %d, %d simulator thread(s), %d CPUs, Java %s%n",
                seeds, first, threads, Runtime.getRuntime().availableProcessors(), Runtime.version());
        System.out.printf(Locale.ROOT, "%5s %8s %8s %8s %8s %12s %12s %8s %s%n", "round", "wall s", "CPU s",
                "JIT s", "GC s", "seeds/wall-s", "seeds/CPU-s", "sim-s", "failures");
        for (int round = 1; round <= rounds; round++) {
            Explorer.Settings settings = new Explorer.Settings(seeds, first, "swarm", Workload.MIXED, InjectedBug.NONE,
                    threads, false);
            long cpu0 = os.getProcessCpuTime();
            long jit0 = jit.getTotalCompilationTime();
            long gc0 = gcMillis();
            long wall0 = System.nanoTime();
            Explorer.Summary summary = Explorer.run(settings, new AtomicInteger(), result -> { });
            double wall = (System.nanoTime() - wall0) / 1e9;
            double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
            double jitSeconds = (jit.getTotalCompilationTime() - jit0) / 1e3;
            double gc = (gcMillis() - gc0) / 1e3;
            System.out.printf(Locale.ROOT, "%5d %8.2f %8.2f %8.2f %8.2f %12.1f %12.1f %8.1f %d%n", round, wall, cpu,
                    jitSeconds, gc, summary.seedsRun() / wall, summary.seedsRun() / cpu,
                    summary.simulatedNanos() / 1e9, summary.failures().size());
        }
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }
}
