package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reports read back as they were written, whatever a failure's text holds, and reports of the earlier writer (a
 * document tree) still read: a merge may meet shards written by either.
 */
class SweepReportCompatibilityTest {

    private static Map<String, String> sweep() {
        Map<String, String> sweep = new LinkedHashMap<>();
        sweep.put("firstSeed", "1");
        sweep.put("seeds", "2");
        sweep.put("faults", "swarm");
        sweep.put("workload", "mixed");
        sweep.put("bug", "none");
        return sweep;
    }

    /** A carriage return, alone or before a line feed, reads back: a raw one would be read as a line feed. */
    @Test
    void aCarriageReturnInAFailureReadsBack(@TempDir Path directory) throws Exception {
        SweepReport.Report report = new SweepReport.Report(sweep(), Shard.ALL, List.of(
                new SweepReport.Verdict(1, true, "", "kv:seed=1:workload=mixed", "aa"),
                new SweepReport.Verdict(2, false, "crlf\r\nlone cr\rend", "kv:seed=2:workload=mixed", "bb")));
        assertEquals(report, SweepReport.read(SweepReport.write(directory, report)));
    }

    /** A report exactly as the earlier document-tree writer wrote it (CR as {@code &#13;}) reads back. */
    @Test
    void aReportOfTheOldWriterReadsBack(@TempDir Path directory) throws Exception {
        Path old = Files.writeString(directory.resolve("explore.xml"), """
                <?xml version="1.0" encoding="UTF-8" standalone="no"?>
                <testsuite errors="0" failures="1" name="lockstep explore" skipped="0" tests="2">
                    <properties>
                        <property name="lockstep.firstSeed" value="1"/>
                        <property name="lockstep.seeds" value="2"/>
                        <property name="lockstep.faults" value="swarm"/>
                        <property name="lockstep.workload" value="mixed"/>
                        <property name="lockstep.bug" value="none"/>
                        <property name="lockstep.shard" value="0/1"/>
                    </properties>
                    <testcase classname="lockstep.explore.mixed" name="seed 1">
                        <system-out>replay: kv:seed=1:workload=mixed
                digest: aa
                </system-out>
                    </testcase>
                    <testcase classname="lockstep.explore.mixed" name="seed 2">
                        <failure message="key &lt;7&gt; &amp; ]]&gt; lost" type="SeedFailed">key &lt;7&gt; &amp; ]]&gt; lost&#13;
                naïve
                replay: ./lockstep replay kv:seed=2 x</failure>
                        <system-out>replay: kv:seed=2 x
                digest: bb
                </system-out>
                    </testcase>
                </testsuite>
                """, StandardCharsets.UTF_8);
        assertEquals(new SweepReport.Report(sweep(), Shard.ALL, List.of(
                new SweepReport.Verdict(1, true, "", "kv:seed=1:workload=mixed", "aa"),
                new SweepReport.Verdict(2, false, "key <7> & ]]> lost\r\nnaïve", "kv:seed=2 x", "bb"))),
                SweepReport.read(old));
    }

    /** A character XML cannot hold (ESC, NUL) is written as its escape: the report stays readable, the rest exact. */
    @Test
    void aControlCharacterInAFailureIsEscapedAndTheReportStillReads(@TempDir Path directory) throws Exception {
        SweepReport.Report report = new SweepReport.Report(sweep(), Shard.ALL, List.of(
                new SweepReport.Verdict(1, true, "", "kv:seed=1:workload=mixed", "aa"),
                new SweepReport.Verdict(2, false, "colour \u001b[31mred\u0000 naïve \uD83D\uDE00 \uD800 end",
                        "kv:seed=2:workload=mixed", "bb")));
        SweepReport.Report read = SweepReport.read(SweepReport.write(directory, report));
        assertEquals("colour \\u001B[31mred\\u0000 naïve \uD83D\uDE00 \\uD800 end", read.verdicts().get(1).failure());
        assertEquals(report.verdicts().get(0), read.verdicts().get(0));
    }
}
