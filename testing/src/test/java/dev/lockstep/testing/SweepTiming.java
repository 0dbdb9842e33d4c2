package dev.lockstep.testing;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * Times one {@code @SimulationTest} class's sweep through the JUnit Platform, as a build runs it, with a given
 * {@link SimulationExtension#THREADS}: {@code java ... dev.lockstep.testing.SweepTiming THREADS [SWEEPS [CLASS]]}
 * (the class defaults to {@code example.JournalSweepFixture}, 100 seeds of the README's journal test; SWEEPS, the
 * times it is swept one after another in this JVM, to 1: the first is cold, the later ones show the warm rate).
 * Prints each sweep's wall-clock time, the process's CPU time over it (every thread: the runs, JUnit, the JIT,
 * the collector) and how many platform threads the JVM started during it (the sweep's own, the simulators'
 * carriers, and any other). A benchmark, not a test: docs/archive/benchmarks-history.md,
 * "`@SimulationTest` on every processor", has the command and the figures.
 */
public final class SweepTiming {
    private SweepTiming() {
    }

    public static void main(String[] args) throws Exception {
        String threads = args[0];
        int sweeps = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Class<?> fixture = Class.forName(args.length > 2 ? args[2] : "dev.lockstep.testing.example.JournalSweepFixture");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        var threadBean = ManagementFactory.getThreadMXBean();
        for (int sweep = 1; sweep <= sweeps; sweep++) {
            long started0 = threadBean.getTotalStartedThreadCount();
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            Launch launch = Launch.run(Map.of(SimulationExtension.THREADS, threads), selectClass(fixture));
            long wall = System.nanoTime() - wall0;
            long cpu = os.getProcessCpuTime() - cpu0;
            long started = threadBean.getTotalStartedThreadCount() - started0;
            System.out.printf("threads=%s sweep=%d seeds=%d failed=%d wall=%.2f s cpu=%.2f s threads started=%d%n",
                    threads, sweep, launch.finished.size(), launch.failed().size() + launch.failedContainers.size(),
                    wall / 1e9, cpu / 1e9, started);
        }
    }
}
