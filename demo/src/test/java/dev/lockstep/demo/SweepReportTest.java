package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep's report as a CI system and {@code --merge} meet it: what is written reads back the same, whatever a
 * failure's text holds (a character XML cannot hold comes back as its escape); a report of the earlier
 * document-tree writer still reads; a large merged sweep reads and writes without a document tree; and a report
 * from elsewhere cannot make the reader fetch a file or a URL.
 */
class SweepReportTest {

    private static Map<String, String> sweep(int seeds) {
        Map<String, String> sweep = new LinkedHashMap<>();
        sweep.put("firstSeed", "1");
        sweep.put("seeds", Integer.toString(seeds));
        sweep.put("faults", "swarm");
        sweep.put("workload", "mixed");
        sweep.put("bug", "none");
        return sweep;
    }

    @Test
    void aReportReadsBackAsItWasWrittenWhateverItsFailuresSay(@TempDir Path directory) throws Exception {
        List<SweepReport.Verdict> verdicts = List.of(
                new SweepReport.Verdict(1, true, "", "kv:seed=1:workload=mixed", "aa"),
                new SweepReport.Verdict(2, false, "key <7> & \"8\" lost\nsecond line with 'quotes' and ]]> in it",
                        "kv:seed=2:faults=crash:workload=mixed", "bb"),
                new SweepReport.Verdict(3, false, "one line", "kv:seed=3:workload=mixed", "cc"));
        SweepReport.Report report = new SweepReport.Report(sweep(3), Shard.ALL, verdicts);
        Path file = SweepReport.write(directory, report);
        assertEquals(report, SweepReport.read(file));
        String xml = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(xml.contains("tests=\"3\" failures=\"2\""), xml);
        assertEquals("./lockstep replay kv:seed=2:faults=crash:workload=mixed\n./lockstep replay kv:seed=3:workload=mixed\n",
                Files.readString(directory.resolve("explore.failures"), StandardCharsets.UTF_8));
    }

    @Test
    void aLargeSweepMergesFromItsShards(@TempDir Path directory) throws Exception {
        // Ten shards of a 250,000-seed sweep, merged by `explore --merge` in a JVM of a 96 MiB heap and written as
        // one report, then read back: the seeds in order, once each, the one failure kept. The streaming reader
        // and writer merge them in 64 MiB; read and written as a document tree, as before, they ran out of 128.
        // (A million seeds' shards merge in a 1 GiB heap, 0.7 GB resident.)
        int seeds = 250_000;
        int shards = 10;
        for (int index = 0; index < shards; index++) {
            Shard shard = new Shard(index, shards);
            List<SweepReport.Verdict> verdicts = new ArrayList<>();
            for (long seed : shard.seeds(1, seeds)) {
                verdicts.add(new SweepReport.Verdict(seed, seed != 177_777, seed != 177_777 ? "" : "lost a write",
                        "kv:seed=" + seed, "d"));
            }
            SweepReport.write(directory.resolve("shards"), new SweepReport.Report(sweep(seeds), shard, verdicts));
        }
        List<String> command = new ArrayList<>(Main.javaCommand("explore", "--merge",
                directory.resolve("shards").toString(), "--report", directory.resolve("merged").toString()));
        command.add(1, "-Xmx96m");
        Path log = directory.resolve("merge.log");
        Process merge = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(merge.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "the merge did not finish");
        String output = java.nio.file.Files.readString(log);
        assertEquals(1, merge.exitValue(), "one seed failed, so the merge says 1: " + output);
        java.util.regex.Matcher written = java.util.regex.Pattern.compile("report: (\\S+)").matcher(output);
        assertTrue(written.find(), output);
        SweepReport.Report again = SweepReport.read(Path.of(written.group(1)));
        assertEquals(seeds, again.verdicts().size());
        for (int i = 0; i < seeds; i++) {
            if (again.verdicts().get(i).seed() != i + 1) {
                throw new AssertionError("verdict " + i + " is of seed " + again.verdicts().get(i).seed());
            }
        }
        assertEquals(List.of(177_777L), again.failures().stream().map(SweepReport.Verdict::seed).toList());
    }

    @Test
    void aReportWithADocumentTypeIsRefusedAndReadsNothingElse(@TempDir Path directory) throws Exception {
        Path secret = Files.writeString(directory.resolve("secret.txt"), "do not read");
        Path report = Files.writeString(directory.resolve("explore.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE testsuite [<!ENTITY leak SYSTEM "%s">]>
                <testsuite name="lockstep explore" tests="1" failures="1" errors="0" skipped="0">
                    <properties><property name="lockstep.shard" value="0/1"/></properties>
                    <testcase classname="lockstep.explore.mixed" name="seed 1">
                        <failure message="x" type="SeedFailed">&leak;</failure>
                    </testcase>
                </testsuite>
                """.formatted(secret.toUri()), StandardCharsets.UTF_8);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> SweepReport.read(report));
        assertTrue(refused.getMessage().startsWith(report + " is not a"), refused.getMessage());
        assertTrue(!refused.getMessage().contains("do not read"), refused.getMessage());
    }

    @Test
    void aFileThatIsNotAReportIsRefusedNamingIt(@TempDir Path directory) throws Exception {
        Path other = Files.writeString(directory.resolve("other.xml"), "<results><case/></results>");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SweepReport.read(other)).getMessage()
                .equals(other + " is not a report of lockstep explore"));
        Path broken = Files.writeString(directory.resolve("broken.xml"), "<testsuite name=\"lockstep explore\">"
                + "<testcase name=\"seed x\"/></testsuite>");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SweepReport.read(broken)).getMessage()
                .startsWith(broken + " is not a report of lockstep explore"));
        Path text = Files.writeString(directory.resolve("text.xml"), "not xml at all");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SweepReport.read(text)).getMessage()
                .startsWith(text + " is not a readable JUnit XML report"));
    }

    /** A carriage return, alone or before a line feed, reads back: a raw one would be read as a line feed. */
    @Test
    void aCarriageReturnInAFailureReadsBack(@TempDir Path directory) throws Exception {
        SweepReport.Report report = new SweepReport.Report(sweep(2), Shard.ALL, List.of(
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
        assertEquals(new SweepReport.Report(sweep(2), Shard.ALL, List.of(
                new SweepReport.Verdict(1, true, "", "kv:seed=1:workload=mixed", "aa"),
                new SweepReport.Verdict(2, false, "key <7> & ]]> lost\r\nnaïve", "kv:seed=2 x", "bb"))),
                SweepReport.read(old));
    }

    /** A character XML cannot hold (ESC, NUL) is written as its escape: the report stays readable, the rest exact. */
    @Test
    void aControlCharacterInAFailureIsEscapedAndTheReportStillReads(@TempDir Path directory) throws Exception {
        SweepReport.Report report = new SweepReport.Report(sweep(2), Shard.ALL, List.of(
                new SweepReport.Verdict(1, true, "", "kv:seed=1:workload=mixed", "aa"),
                new SweepReport.Verdict(2, false, "colour \u001b[31mred\u0000 naïve \uD83D\uDE00 \uD800 end",
                        "kv:seed=2:workload=mixed", "bb")));
        SweepReport.Report read = SweepReport.read(SweepReport.write(directory, report));
        assertEquals("colour \\u001B[31mred\\u0000 naïve \uD83D\uDE00 \\uD800 end", read.verdicts().get(1).failure());
        assertEquals(report.verdicts().get(0), read.verdicts().get(0));
    }
}
