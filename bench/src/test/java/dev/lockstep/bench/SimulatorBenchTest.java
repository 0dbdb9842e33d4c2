package dev.lockstep.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.sim.SimThroughput;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulator section's comparison with its target reads the storage and network workloads' I/O operations per
 * CPU second from SimThroughput's result lines, as SimThroughput formats them, and says when it cannot find them
 * instead of printing a figure from elsewhere.
 */
class SimulatorBenchTest {
    @Test
    void theStorageAndNetworkWorkloadsAreComparedWithTheTarget() {
        List<String> output = List.of("Lockstep simulator throughput on 25, 2 CPUs",
                "workload   runs   I/O ops/cpu-s (a table for people, whatever its columns)",
                SimThroughput.resultLine("mixed (3 workers: net+partition+faults+storage) interleaved", 21647),
                SimThroughput.resultLine("storage (1 worker, 8 fibers: 4 KiB writes, syncs, reads) interleaved",
                        500000),
                SimThroughput.resultLine("network (2 workers, 4 connections: 64 B echoes) service_first",
                        1249999.6));
        String table = SimulatorBench.againstTarget(output);
        assertEquals("""
                Against the target of 1,000,000 simulated I/O operations per CPU second of the simulator's thread:

                | SimThroughput workload | I/O ops/cpu-s | ÷ target |
                |---|---:|---:|
                | storage (1 worker, 8 fibers: 4 KiB writes, syncs, reads) interleaved | 500,000 | 0.50 |
                | network (2 workers, 4 connections: 64 B echoes) service_first | 1,250,000 | 1.25 |
                """, table);
        assertEquals(output.subList(0, 2), SimulatorBench.forPeople(output), "the result lines stay out of the table");
    }

    @Test
    void outputWithoutResultLinesIsSaidSo() {
        List<String> output = List.of("workload   runs   I/O ops/cpu-s",
                "storage (1 worker) interleaved   10   500000");
        assertEquals("SimThroughput printed no RESULT line of a storage or network workload\n",
                SimulatorBench.againstTarget(output));
    }

    @Test
    void aResultLineWithoutItsFigureIsSaidSo() {
        String line = "RESULT ioOpsPerCpuSecond=fast workload=storage (1 worker) interleaved";
        assertEquals("SimThroughput's result line has no number after ioOpsPerCpuSecond=: " + line + "\n",
                SimulatorBench.againstTarget(List.of(line)));
    }
}
