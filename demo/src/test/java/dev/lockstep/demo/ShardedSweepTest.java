package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sharded sweeps: N shards run as separate processes, each writing its JUnit XML report, merge into exactly the
 * unsharded sweep (the same seeds, verdicts and audit digests), and a merge that is not one whole sweep is
 * refused.
 */
class ShardedSweepTest {
    private static final int SEEDS = 5;
    private static final long FIRST = 40;

    @Test
    void shardsAreDisjointAndTogetherExactlyTheSweep() {
        for (int count = 1; count <= 5; count++) {
            List<Long> union = new ArrayList<>();
            for (int index = 0; index < count; index++) {
                for (long seed : new Shard(index, count).seeds(FIRST, 13)) {
                    union.add(seed);
                }
            }
            union.sort(null);
            assertEquals(LongStream.range(FIRST, FIRST + 13).boxed().toList(), union, "N=" + count);
        }
        assertArrayEquals(new long[0], new Shard(4, 5).seeds(1, 3));
        assertEquals("a shard is K/N with N >= 1 and 0 <= K < N, was 3/3",
                assertThrows(IllegalArgumentException.class, () -> Shard.parse("3/3")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Shard.parse("x")).getMessage().contains("'x'"));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shardsRunAsSeparateProcessesMergeIntoTheUnshardedSweep(@TempDir Path reports) throws Exception {
        // The whole sweep, in this JVM.
        Explorer.Settings whole = new Explorer.Settings(SEEDS, FIRST, "swarm", Workload.MIXED, InjectedBug.NONE, 1,
                false);
        Explorer.Summary unsharded = Explorer.run(whole, new AtomicInteger(), result -> { });
        Map<Long, String> expected = unsharded.results().stream().collect(Collectors.toMap(
                result -> result.spec().seed(), result -> result.passed() + " " + result.digest()));

        // Three shards, three processes.
        List<Process> processes = new ArrayList<>();
        for (int index = 0; index < 3; index++) {
            Path log = reports.resolve("shard-" + index + ".log");
            processes.add(new ProcessBuilder(Main.javaCommand("explore", "--seeds", Integer.toString(SEEDS),
                    "--first-seed", Long.toString(FIRST), "--threads", "1", "--shard", index + "/3", "--report",
                    reports.resolve("out").toString())).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start());
        }
        for (int index = 0; index < 3; index++) {
            Process process = processes.get(index);
            assertTrue(process.waitFor(200, TimeUnit.SECONDS), "shard " + index + " did not finish");
            String log = Files.readString(reports.resolve("shard-" + index + ".log"), StandardCharsets.UTF_8);
            assertEquals(expectedStatus(unsharded, new Shard(index, 3)), process.exitValue(), log);
            assertTrue(Files.exists(reports.resolve("out/explore-shard-" + index + "-of-3.xml")), log);
            assertTrue(Files.exists(reports.resolve("out/explore-shard-" + index + "-of-3.failures")), log);
        }

        SweepReport.Report merged = SweepReport.merge(SweepReport.readAll(List.of(reports.resolve("out"))));
        Map<Long, String> actual = merged.verdicts().stream().collect(Collectors.toMap(SweepReport.Verdict::seed,
                verdict -> verdict.passed() + " " + verdict.digest()));
        assertEquals(expected, actual);
        assertEquals(LongStream.range(FIRST, FIRST + SEEDS).boxed().toList(),
                merged.verdicts().stream().map(SweepReport.Verdict::seed).toList());

        // The merged report, written and read back, is the same sweep.
        Path mergedFile = SweepReport.write(reports.resolve("merged"), merged);
        assertEquals(merged, SweepReport.read(mergedFile));
    }

    /** A shard exits 1 exactly when one of its seeds failed in the unsharded sweep. */
    private static int expectedStatus(Explorer.Summary summary, Shard shard) {
        List<Long> mine = LongStream.of(shard.seeds(FIRST, SEEDS)).boxed().toList();
        return summary.failures().stream().anyMatch(result -> mine.contains(result.spec().seed())) ? 1 : 0;
    }

    @Test
    void aMergeThatIsNotOneWholeSweepIsRefusedNamingWhy(@TempDir Path reports) throws Exception {
        Explorer.Settings settings = new Explorer.Settings(4, 1, "none", Workload.MIXED, InjectedBug.NONE, 1, false,
                new Shard(0, 2));
        SweepReport.Report first = SweepReport.of(settings, Explorer.run(settings, new AtomicInteger(), r -> { }));
        assertEquals(List.of(1L, 3L), first.verdicts().stream().map(SweepReport.Verdict::seed).toList());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> SweepReport.merge(List.of(first)));
        assertEquals("shard report(s) missing: 1/2", missing.getMessage());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> SweepReport.merge(List.of(first, first)));
        assertEquals("shard 0/2 given twice", twice.getMessage());
        Explorer.Settings other = new Explorer.Settings(4, 1, "none", Workload.MIXED, InjectedBug.ACK_BEFORE_SYNC, 1,
                false, new Shard(1, 2));
        SweepReport.Report different = SweepReport.of(other, Explorer.run(other, new AtomicInteger(), r -> { }));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SweepReport.merge(List.of(first, different)))
                .getMessage().startsWith("reports of different sweeps"));
        assertFalse(Files.exists(reports.resolve("nothing")));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> SweepReport.readAll(List.of(reports.resolve("nothing")))).getMessage().startsWith("no report at"));
    }
}
