package dev.lockstep.sim;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongFunction;

/**
 * The simulator's throughput: simulated I/O operations and fiber switches per CPU second, over its workloads.
 * Not a test (surefire runs {@code *Test}); {@code ./lockstep bench --only sim} runs it (BENCHMARKS.md has the
 * figures), and so does, alone:
 *
 * <pre>
 * mvn -q -o -pl runtime-sim test-compile exec:exec -Dexec.executable=java -Dexec.classpathScope=test \
 *   -Dexec.args="--add-opens java.base/java.lang=ALL-UNNAMED -cp %classpath dev.lockstep.sim.SimThroughput"
 * </pre>
 *
 * <p>CPU time is the simulator thread's ({@link SimRunner#simulatorCpuNanos()}: the run's carrier, on which every
 * fiber runs), and, for comparison, the whole process's (JIT and GC threads included). Each workload warms up for
 * the same simulator-thread CPU time ({@link #WARM_UP_CPU_NANOS}) and until the JIT has compiled nothing for a while
 * ({@link #QUIET_CPU_NANOS}), at most {@link #WARM_UP_MAX_CPU_NANOS}, then is measured over a fixed number of
 * seeded runs. A fiber switch is one continuation the scheduler runs ({@link SimStats#fiberSteps()}); an I/O
 * operation is a ring completion or a system call of the simulated kernel ({@link SimStats#ioOperations()}). The
 * last columns say where the steps went: service steps, clock slips, raw generator draws, every scheduler step
 * ({@link SimStats#schedulerSteps()}) and the simulator thread's CPU time per step.
 *
 * <p>The {@code empty} workload's root task returns at once, so its runs are nothing but a run's set-up and
 * tear-down. For it the simulator thread's CPU time leaves out what the caller's thread spends handing the run to
 * its carrier and waiting for it (a thread start, where the carrier is new); the process's CPU time includes it, so
 * the table gives runs per CPU second of both.
 */
public final class SimThroughput {

    private SimThroughput() {
    }

    /** One workload: a name, how many seeded runs are measured, and the runner and task for a seed. */
    private record Workload(String name, int runs, LongFunction<SimConfig> config, dev.lockstep.Task<?> task) {
    }

    /** Totals over the measured runs of one workload. */
    private record Totals(long switches, long ioOperations, long ringCompletions, long systemCalls, long auditEvents,
            long simulatedNanos, long threadCpuNanos, long processCpuNanos, int runs, long serviceSteps,
            long clockSlips, long draws) {
    }

    /**
     * Runs every workload and prints one table row each, per scheduling mode.
     *
     * @param args optional: a multiplier for the number of runs (default 1), then the scheduling modes to measure
     *             side by side, comma-separated (default {@code INTERLEAVED,SERVICE_FIRST}; see {@link Scheduling}),
     *             then the workloads to run, comma-separated first words of their names (default all: {@code
     *             mixed,storage,distinct,network,connections,switches,empty})
     */
    public static void main(String[] args) {
        double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1;
        List<Scheduling> modes = new ArrayList<>();
        for (String mode : (args.length > 1 ? args[1] : "INTERLEAVED,SERVICE_FIRST").split(",")) {
            modes.add(Scheduling.valueOf(mode.strip().toUpperCase(Locale.ROOT)));
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure thread CPU time");
        }
        threads.setThreadCpuTimeEnabled(true);
        List<Workload> workloads = List.of(
                new Workload("mixed (3 workers: net+partition+faults+storage)", scaled(400, scale),
                        MixedWorkload::config, MixedWorkload::run),
                new Workload("storage (1 worker, 8 fibers: 4 KiB writes, syncs, reads)", scaled(40, scale),
                        seed -> SimConfig.builder().seed(seed).build(), ctx -> storage(ctx, false)),
                new Workload("distinct (storage, every 4 KiB block written different)", scaled(40, scale),
                        seed -> SimConfig.builder().seed(seed).build(), ctx -> storage(ctx, true)),
                new Workload("network (2 workers, 4 connections: 64 B echoes)", scaled(40, scale),
                        seed -> SimConfig.builder().seed(seed).workers(2).build(), ctx -> network(ctx, 4, 250)),
                new Workload("connections (2 workers, 64 connections: 64 B echoes, 16 each)", scaled(40, scale),
                        seed -> SimConfig.builder().seed(seed).workers(2).build(), ctx -> network(ctx, 64, 16)),
                new Workload("switches (1 worker, 64 fibers: 1 us sleeps)", scaled(40, scale),
                        seed -> SimConfig.builder().seed(seed).build(), SimThroughput::switches),
                new Workload("empty (1 worker, a root task that returns at once)", scaled(2_000, scale),
                        seed -> SimConfig.builder().seed(seed).build(), ctx -> null));
        System.out.println("Lockstep simulator throughput on " + Runtime.version() + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs");
        System.out.println("Each row: the median of " + REPEATS + " measurements of the same seeded runs, after a"
                + " warm-up; rates per CPU second of the simulator's thread, but runs/proc-s: runs per CPU second of"
                + " the whole process (the caller's thread, JIT and GC included).");
        System.out.printf(Locale.ROOT, "%-72s %5s %10s %10s %8s %9s %14s %13s %10s %11s %11s %12s %10s %10s %9s %10s"
                + " %11s%n", "workload", "runs", "switches", "I/O ops", "thread s", "process s", "switches/cpu-s",
                "I/O ops/cpu-s", "runs/cpu-s", "runs/proc-s", "sim-s/cpu-s", "audit events", "svc steps", "slips",
                "draws", "steps", "ns/step");
        List<String> only = args.length > 2 ? List.of(args[2].split(",")) : List.of();
        for (Workload plain : workloads) {
            if (!only.isEmpty() && !only.contains(plain.name().split(" ")[0])) {
                continue;
            }
            for (Scheduling mode : modes) {
                report(new Workload(plain.name() + " " + mode.name().toLowerCase(Locale.ROOT), plain.runs(),
                        seed -> plain.config().apply(seed).toBuilder().scheduling(mode).build(), plain.task()));
            }
        }
    }

    /** Warms up, measures {@link #REPEATS} times and prints the median row. */
    private static void report(Workload workload) {
        warmUp(workload);
        List<Totals> repeats = new ArrayList<>();
        for (int r = 0; r < REPEATS; r++) {
            repeats.add(measure(workload, 1_000, workload.runs()));
        }
        repeats.sort(java.util.Comparator.comparingLong(Totals::threadCpuNanos));
        Totals totals = repeats.get(REPEATS / 2);
        double cpu = totals.threadCpuNanos() / 1e9;
        double processCpu = totals.processCpuNanos() / 1e9;
        long steps = totals.switches() + totals.serviceSteps() + totals.clockSlips();
        System.out.printf(Locale.ROOT, "%-72s %5d %10d %10d %8.2f %9.2f %14.0f %13.0f %10.0f %11.0f %11.1f %12d %10d %10d"
                + " %9d %10d %11.0f%n", workload.name(), totals.runs(), totals.switches(), totals.ioOperations(), cpu,
                processCpu, totals.switches() / cpu, totals.ioOperations() / cpu, totals.runs() / cpu,
                totals.runs() / processCpu, totals.simulatedNanos() / 1e9 / cpu, totals.auditEvents(),
                totals.serviceSteps(), totals.clockSlips(), totals.draws(), steps, totals.threadCpuNanos() / (double) steps);
        System.out.println(resultLine(workload.name(), totals.ioOperations() / cpu));
    }

    /** What starts a {@link #resultLine}. */
    private static final String RESULT = "RESULT ";

    /** The key of a result line's I/O operations per CPU second of the simulator's thread. */
    private static final String IO_OPS_PER_CPU_SECOND = "ioOpsPerCpuSecond=";

    /** The key of a result line's workload: the last field, the rest of the line, spaces included. */
    private static final String WORKLOAD = "workload=";

    /**
     * A workload's row for programs to read, whatever the table's layout:
     * {@code RESULT ioOpsPerCpuSecond=<whole number> workload=<the table's name>}.
     *
     * @param workload the workload's name, as in the table
     * @param ioOpsPerCpuSecond its simulated I/O operations per CPU second of the simulator's thread
     * @return the line, without a line end
     */
    public static String resultLine(String workload, double ioOpsPerCpuSecond) {
        return String.format(Locale.ROOT, "%s%s%.0f %s%s", RESULT, IO_OPS_PER_CPU_SECOND, ioOpsPerCpuSecond, WORKLOAD,
                workload);
    }

    private static final int REPEATS = 3;

    /**
     * How much of the simulator thread's CPU time every workload's warm-up spends at least, whatever its number of
     * runs: enough for the JIT to compile the hot paths of the simulated kernel and engine, so that a row measures
     * warm code and not how far compilation got (a storage run costs about ten times as much cold).
     */
    private static final long WARM_UP_CPU_NANOS = 2_000_000_000L;

    /**
     * How much of the simulator thread's CPU time the warm-up's last batches spend with the JIT compiling nothing:
     * on a loaded machine the compiler threads lag behind the simulator's, so a spent budget alone may end the
     * warm-up before the hot paths are compiled.
     */
    private static final long QUIET_CPU_NANOS = 300_000_000L;

    /** The most of the simulator thread's CPU time a warm-up spends: a JIT that never settles still lets a row end. */
    private static final long WARM_UP_MAX_CPU_NANOS = 6_000_000_000L;

    /** The most batches a warm-up runs, should the thread's CPU clock not move. */
    private static final int WARM_UP_MAX_BATCHES = 2_000;

    /**
     * Runs the workload's seeds in batches of a quarter of its runs (seeds from 0, unlike the measured seeds) until
     * the batches have spent {@link #WARM_UP_CPU_NANOS} of the simulator thread's CPU time and the last of them
     * {@link #QUIET_CPU_NANOS} without the JIT's compiling anything, or {@link #WARM_UP_MAX_CPU_NANOS} in all.
     */
    private static void warmUp(Workload workload) {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long spent = 0;
        long quietSince = 0;
        long compiling = jitTimed ? jit.getTotalCompilationTime() : 0;
        int batch = Math.max(1, workload.runs() / 4);
        for (int b = 0; b < WARM_UP_MAX_BATCHES && spent < WARM_UP_MAX_CPU_NANOS
                && (spent < WARM_UP_CPU_NANOS || spent - quietSince < QUIET_CPU_NANOS); b++) {
            spent += measure(workload, 0, batch).threadCpuNanos();
            long compiled = jitTimed ? jit.getTotalCompilationTime() : compiling;
            if (compiled != compiling) {
                compiling = compiled;
                quietSince = spent;
            }
        }
    }

    private static int scaled(int runs, double scale) {
        return Math.max(1, (int) Math.round(runs * scale));
    }

    @SuppressWarnings("unchecked")
    private static Totals measure(Workload workload, long firstSeed, int runs) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        long switches = 0;
        long ring = 0;
        long calls = 0;
        long events = 0;
        long simulated = 0;
        long threadCpu = 0;
        long serviceSteps = 0;
        long clockSlips = 0;
        long draws = 0;
        long processBefore = os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
        for (int i = 0; i < runs; i++) {
            SimRunner runner = SimRunner.of(workload.config().apply(firstSeed + i));
            runner.start((dev.lockstep.Task<Object>) workload.task());
            SimStats stats = runner.stats();
            switches += stats.fiberSteps();
            ring += stats.ringCompletions();
            calls += stats.systemCalls();
            events += stats.auditEvents();
            simulated += stats.simulatedNanos();
            serviceSteps += stats.serviceSteps();
            clockSlips += stats.clockSlips();
            draws += stats.draws();
            threadCpu += runner.simulatorCpuNanos();
        }
        long processCpu = (os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0)
                - processBefore;
        return new Totals(switches, ring + calls, ring, calls, events, simulated, threadCpu, processCpu, runs,
                serviceSteps, clockSlips, draws);
    }

    /**
     * Eight fibers, each writing 64 blocks of 4 KiB to its own blob, syncing every 8, reading each back. The blocks
     * are the same 64 in every fiber (only the first byte varies), or, {@code distinct}, every block of the run
     * differs: the auditor remembers the digests of blocks it has hashed, so the two show what a write of new
     * bytes costs against one of bytes seen before.
     */
    private static Object storage(Context ctx, boolean distinct) {
        List<Handle<Void>> handles = new ArrayList<>();
        for (int f = 0; f < 8; f++) {
            int id = f;
            handles.add(ctx.child("f" + f).spawn(c -> {
                byte[] block = new byte[4096];
                try (Blob blob = c.open("bench", "blob" + id).await().blob()) {
                    for (int i = 0; i < 64; i++) {
                        block[0] = (byte) i;
                        if (distinct) {
                            block[1] = (byte) id;
                            for (int k = 2; k < block.length; k += 8) {
                                block[k] = (byte) (k * 31 + i * 7 + id);
                            }
                        }
                        blob.writeAt((long) i * block.length, block).await();
                        if (i % 8 == 7) {
                            blob.sync().await();
                        }
                        blob.readAt((long) i * block.length, block.length).await();
                    }
                }
                return null;
            }));
        }
        for (Handle<Void> handle : handles) {
            handle.await();
        }
        return null;
    }

    /**
     * {@code connections} connections from worker 0 to an echo server on worker 1, {@code messages} round trips of
     * 64 bytes each on every one.
     */
    private static Object network(Context ctx, int connections, int messages) {
        SimControl sim = SimRunner.control(ctx);
        InetSocketAddress address = new InetSocketAddress(sim.host(1), 9000);
        Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(address).await()).await();
        ctx.child("server").spawnOn(1, c -> {
            for (int i = 0; ; i++) {
                Connection connection = listener.accept().await();
                c.child("echo" + i).spawn(e -> {
                    try (connection) {
                        while (true) {
                            connection.sink().send(connection.stream().recv(64).await()).await();
                        }
                    } catch (dev.lockstep.LockstepException closed) {
                        return null;
                    }
                });
            }
        });
        List<Handle<Void>> clients = new ArrayList<>();
        for (int k = 0; k < connections; k++) {
            clients.add(ctx.child("client" + k).spawn(c -> {
                byte[] message = new byte[64];
                try (Connection connection = c.dial(address).await()) {
                    for (int i = 0; i < messages; i++) {
                        connection.sink().send(message).await();
                        connection.stream().recv(64).await();
                    }
                }
                return null;
            }));
        }
        for (Handle<Void> client : clients) {
            client.await();
        }
        listener.close();
        return null;
    }

    /** 64 fibers, each sleeping 1 µs 200 times: timers and fiber switches only. */
    private static Object switches(Context ctx) {
        List<Handle<Void>> handles = new ArrayList<>();
        for (int f = 0; f < 64; f++) {
            handles.add(ctx.child("f" + f).spawn(c -> {
                for (int i = 0; i < 200; i++) {
                    c.sleep(Duration.ofNanos(1_000));
                }
                return null;
            }));
        }
        for (Handle<Void> handle : handles) {
            handle.await();
        }
        return null;
    }
}
