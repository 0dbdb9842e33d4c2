package dev.lockstep.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The simulator section's comparison with its target reads the storage and network rows' I/O operations per CPU
 * second from SimThroughput's table, whose columns are laid out by the same widths as here, and says when it
 * cannot find them instead of printing a figure from another column.
 */
class SimulatorBenchTest {
    private static final String FORMAT = "%-72s %5s %10s %10s %8s %9s %14s %13s %10s%n";

    private static String row(Object... cells) {
        return String.format(Locale.ROOT, FORMAT, cells).stripTrailing();
    }

    @Test
    void theStorageAndNetworkRowsAreComparedWithTheTarget() {
        List<String> output = List.of("Lockstep simulator throughput on 25, 2 CPUs",
                row("workload", "runs", "switches", "I/O ops", "thread s", "process s", "switches/cpu-s",
                        "I/O ops/cpu-s", "runs/cpu-s"),
                row("mixed (3 workers: net+partition+faults+storage) interleaved", 100, 7833, 11476, 0.53, 1.61,
                        14775, 21647, 189),
                row("storage (1 worker, 8 fibers: 4 KiB writes, syncs, reads) interleaved", 10, 11074, 12010, 0.24,
                        0.51, 46566, 500000, 42),
                row("network (2 workers, 4 connections: 64 B echoes) service_first", 10, 40282, 40560, 0.12, 0.27,
                        343297, 1250000, 85));
        String table = SimulatorBench.againstTarget(output);
        assertEquals("""
                Against the target of 1,000,000 simulated I/O operations per CPU second of the simulator's thread:

                | SimThroughput workload | I/O ops/cpu-s | ÷ target |
                |---|---:|---:|
                | storage (1 worker, 8 fibers: 4 KiB writes, syncs, reads) interleaved | 500,000 | 0.50 |
                | network (2 workers, 4 connections: 64 B echoes) service_first | 1,250,000 | 1.25 |
                """, table);
    }

    @Test
    void aTableWithoutTheColumnIsSaidSo() {
        List<String> output = List.of(row("workload", "runs", "switches", "I/O ops", "thread s", "process s",
                        "switches/cpu-s", "ops/s", "runs/cpu-s"),
                row("storage (1 worker) interleaved", 10, 11074, 12010, 0.24, 0.51, 46566, 500000, 42));
        assertEquals("SimThroughput printed no storage or network row under a \"I/O ops/cpu-s\" header\n",
                SimulatorBench.againstTarget(output));
    }
}
