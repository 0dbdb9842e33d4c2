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

    /** A digest as a run's audit digest is: 64 lower-case hex digits, these made from {@code seed}. */
    private static String digest(long seed) {
        return java.util.HexFormat.of().toHexDigits(seed).repeat(4);
    }

    /** A verdict of the {@link #sweep} as explore records it: the seed's replay line and digest. */
    private static SweepReport.Verdict verdict(long seed, String failure) {
        String digest = digest(seed);
        return new SweepReport.Verdict(seed, failure.isEmpty(), failure, line(seed, digest), digest);
    }

    private static String line(long seed, String digest) {
        return Explorer.replayLine(new Scenario.Spec(seed, dev.lockstep.testing.FaultConfig.swarm(seed),
                Workload.MIXED, dev.lockstep.demo.kv.InjectedBug.NONE), digest);
    }

    @Test
    void aReportReadsBackAsItWasWrittenWhateverItsFailuresSay(@TempDir Path directory) throws Exception {
        List<SweepReport.Verdict> verdicts = List.of(verdict(1, ""),
                verdict(2, "key <7> & \"8\" lost\nsecond line with 'quotes' and ]]> in it"), verdict(3, "one line"));
        SweepReport.Report report = new SweepReport.Report(sweep(3), Shard.ALL, verdicts);
        Path file = SweepReport.write(directory, report);
        assertEquals(report, SweepReport.read(file));
        String xml = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(xml.contains("tests=\"3\" failures=\"2\""), xml);
        assertEquals("./lockstep replay " + verdicts.get(1).replayLine() + "\n./lockstep replay "
                + verdicts.get(2).replayLine() + "\n",
                Files.readString(directory.resolve("explore.failures"), StandardCharsets.UTF_8));
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 120, unit = java.util.concurrent.TimeUnit.SECONDS) // a JVM reads 30 MB
    void aLargeSweepMergesFromItsShards(@TempDir Path directory) throws Exception {
        // Ten shards of a 100,000-seed sweep (each seed with its full replay line and digest, as explore writes
        // them), merged by `explore --merge` in a JVM of a 48 MiB heap and written as one
        // report, then read back: the seeds in order, once each, the one failure kept. The streaming reader and
        // writer keep the verdicts and no document tree.
        int seeds = 100_000;
        int shards = 10;
        for (int index = 0; index < shards; index++) {
            Shard shard = new Shard(index, shards);
            List<SweepReport.Verdict> verdicts = new ArrayList<>();
            for (long seed : shard.seeds(1, seeds)) {
                verdicts.add(verdict(seed, seed != 77_777 ? "" : "lost a write"));
            }
            SweepReport.write(directory.resolve("shards"), new SweepReport.Report(sweep(seeds), shard, verdicts));
        }
        List<String> command = new ArrayList<>(Main.javaCommand("explore", "--merge",
                directory.resolve("shards").toString(), "--report", directory.resolve("merged").toString()));
        command.add(1, "-Xmx48m");
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
        assertEquals(List.of(77_777L), again.failures().stream().map(SweepReport.Verdict::seed).toList());
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
        SweepReport.Report report = new SweepReport.Report(sweep(2), Shard.ALL, List.of(verdict(1, ""),
                verdict(2, "crlf\r\nlone cr\rend")));
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
                        <system-out>replay: %s
                digest: %s
                </system-out>
                    </testcase>
                    <testcase classname="lockstep.explore.mixed" name="seed 2">
                        <failure message="key &lt;7&gt; &amp; ]]&gt; lost" type="SeedFailed">key &lt;7&gt; &amp; ]]&gt; lost&#13;
                naïve
                replay: ./lockstep replay %s</failure>
                        <system-out>replay: %s
                digest: %s
                </system-out>
                    </testcase>
                </testsuite>
                """.formatted(verdict(1, "").replayLine(), digest(1), verdict(2, "x").replayLine(),
                verdict(2, "x").replayLine(), digest(2)), StandardCharsets.UTF_8);
        assertEquals(new SweepReport.Report(sweep(2), Shard.ALL, List.of(verdict(1, ""),
                verdict(2, "key <7> & ]]> lost\r\nnaïve"))), SweepReport.read(old));
    }

    /** A character XML cannot hold (ESC, NUL) is written as its escape: the report stays readable, the rest exact. */
    @Test
    void aControlCharacterInAFailureIsEscapedAndTheReportStillReads(@TempDir Path directory) throws Exception {
        SweepReport.Report report = new SweepReport.Report(sweep(2), Shard.ALL, List.of(verdict(1, ""),
                verdict(2, "colour \u001b[31mred\u0000 naïve \uD83D\uDE00 \uD800 end")));
        SweepReport.Report read = SweepReport.read(SweepReport.write(directory, report));
        assertEquals("colour \\u001B[31mred\\u0000 naïve \uD83D\uDE00 \\uD800 end", read.verdicts().get(1).failure());
        assertEquals(report.verdicts().get(0), read.verdicts().get(0));
    }

    private static SweepReport.Report shard(Map<String, String> sweep, Shard shard, long... failed) {
        List<SweepReport.Verdict> verdicts = new ArrayList<>();
        for (long seed : shard.seeds(Long.parseLong(sweep.get("firstSeed")), Integer.parseInt(sweep.get("seeds")))) {
            verdicts.add(verdict(seed, java.util.Arrays.stream(failed).anyMatch(f -> f == seed) ? "lost" : ""));
        }
        return new SweepReport.Report(sweep, shard, verdicts);
    }

    /** Reads {@code xml} as a report file and returns the message it was refused with, which names the file. */
    private static String refusal(Path directory, String xml) throws Exception {
        Path file = Files.writeString(directory.resolve("edited.xml"), xml, StandardCharsets.UTF_8);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> SweepReport.read(file),
                xml);
        assertTrue(refused.getMessage().startsWith(file + " is not a"), refused.getMessage());
        return refused.getMessage();
    }

    @Test
    void aSweepPastTheLargestSeedIsRefusedAndTheLastSeedsStillMerge(@TempDir Path directory) throws Exception {
        // Five seeds from Long.MAX_VALUE - 1: first + seeds wrapped to a negative number, the merge's check of the
        // range ran over no seed, and any five verdicts were taken as the whole sweep.
        Map<String, String> forged = sweep(5);
        forged.put("firstSeed", Long.toString(Long.MAX_VALUE - 1));
        List<SweepReport.Verdict> any = List.of(verdict(1, ""), verdict(2, ""), verdict(3, ""), verdict(4, ""),
                verdict(5, ""));
        IllegalArgumentException merged = assertThrows(IllegalArgumentException.class,
                () -> SweepReport.merge(List.of(new SweepReport.Report(forged, Shard.ALL, any))));
        assertEquals("the sweep of 5 seeds from 9223372036854775806 goes past the largest seed, 9223372036854775807",
                merged.getMessage());
        String read = refusal(directory, Files.readString(SweepReport.write(directory.resolve("forged"),
                new SweepReport.Report(forged, Shard.ALL, any))));
        assertTrue(read.contains("goes past the largest seed"), read);
        // The last two seeds there are are a sweep, in two shards.
        Map<String, String> last = sweep(2);
        last.put("firstSeed", Long.toString(Long.MAX_VALUE - 1));
        List<SweepReport.Report> shards = new ArrayList<>();
        for (int index = 0; index < 2; index++) {
            shards.add(SweepReport.read(SweepReport.write(directory.resolve("last"), shard(last, new Shard(index, 2),
                    Long.MAX_VALUE))));
        }
        SweepReport.Report whole = SweepReport.merge(shards);
        assertEquals(List.of(Long.MAX_VALUE - 1, Long.MAX_VALUE), whole.verdicts().stream()
                .map(SweepReport.Verdict::seed).toList());
        assertEquals(List.of(Long.MAX_VALUE), whole.failures().stream().map(SweepReport.Verdict::seed).toList());
    }

    @Test
    void shardsThatHoldEachOthersSeedsAreRefused() {
        // Seeds 1..4 once each, but shard 0/2 holds 1 and 2 and shard 1/2 holds 3 and 4: not what those shards run.
        Map<String, String> sweep = sweep(4);
        SweepReport.Report first = new SweepReport.Report(sweep, new Shard(0, 2), List.of(verdict(1, ""),
                verdict(2, "")));
        SweepReport.Report second = new SweepReport.Report(sweep, new Shard(1, 2), List.of(verdict(3, ""),
                verdict(4, "")));
        assertEquals("shard 0/2 holds seed 2 where the sweep has seed 3", assertThrows(IllegalArgumentException.class,
                () -> SweepReport.merge(List.of(first, second))).getMessage());
        SweepReport.Report tooMany = new SweepReport.Report(sweep, Shard.ALL, List.of(verdict(1, ""), verdict(2, ""),
                verdict(3, ""), verdict(4, ""), verdict(5, "")));
        assertEquals("shard 0/1 holds seed 5, past its 4 seeds", assertThrows(IllegalArgumentException.class,
                () -> SweepReport.merge(List.of(tooMany))).getMessage());
    }

    @Test
    void aReportCutShortIsRefusedWhereverItWasCut(@TempDir Path directory) throws Exception {
        String xml = Files.readString(SweepReport.write(directory, shard(sweep(6), new Shard(1, 2), 4)));
        assertEquals(3, SweepReport.read(directory.resolve("explore-shard-1-of-2.xml")).verdicts().size());
        // Cut at the end of each line but the last: not well-formed, whichever element was open.
        int cut = xml.indexOf('\n');
        while (cut >= 0 && cut < xml.strip().length()) {
            refusal(directory, xml.substring(0, cut));
            cut = xml.indexOf('\n', cut + 1);
        }
        // Cut after a test case and then closed: well-formed, one seed short.
        int lastCase = xml.lastIndexOf("\n    <testcase");
        String closedEarly = xml.substring(0, lastCase) + "\n</testsuite>\n";
        String missing = refusal(directory, closedEarly);
        assertTrue(missing.contains("holds 2 of the 3 seeds of shard 1/2; the first missing is seed 6"), missing);
        // ... and its count edited to match: the shard's seeds are still three.
        String recounted = refusal(directory, closedEarly.replace("tests=\"3\"", "tests=\"2\""));
        assertTrue(recounted.contains("tests=\"2\" where shard 1/2 of the sweep has 3 seeds"), recounted);
    }

    @Test
    void anEditedReportIsRefusedNamingWhatIsWrong(@TempDir Path directory) throws Exception {
        String xml = Files.readString(SweepReport.write(directory, shard(sweep(6), new Shard(1, 2), 4)));
        String line4 = verdict(4, "x").replayLine();
        String[][] edits = {
            {"<property name=\"lockstep.seeds\" value=\"6\"/>", "<property name=\"lockstep.seeds\" value=\"6\"/>"
                    + "<property name=\"lockstep.seeds\" value=\"8\"/>", "property 'lockstep.seeds' given twice"},
            {"<property name=\"lockstep.bug\"", "<property name=\"lockstep.colour\" value=\"red\"/><property"
                    + " name=\"lockstep.bug\"", "unknown property 'lockstep.colour'"},
            {"<property name=\"lockstep.bug\" value=\"none\"/>", "", "the sweep property bug is missing"},
            {"value=\"6\"", "value=\"\u0666\"", "is not a whole number in decimal digits"},
            {"name=\"seed 4\"", "name=\"seed \u0664\"", "is not a whole number in decimal digits"},
            {"name=\"seed 4\"", "name=\"seed 3\"", "test case seed 3 where shard 1/2 of the sweep has seed 4"},
            {"replay: " + line4 + "\n", "replay: " + line4.replace("seed=4", "seed=5") + "\n",
                    "seed 4 has replay line"},
            {"digest: " + digest(4), "digest: a", "seed 4 has digest 'a'"},
            {"failures=\"1\"", "failures=\"0\"", "failures=\"0\" but 1 test cases failed"},
            {"</system-out>", "</system-out><system-out/>", "unexpected <system-out>"},
            {"</system-out>", "</system-out><skipped/>", "unexpected <skipped>"},
            {"name=\"lockstep explore shard 1/2\"", "name=\"lockstep explore\"", "the suite is named"},
            {"lost\nreplay: ./lockstep replay", "lost\nreplay: ./lockstep replay kv:seed=9\nreplay:"
                    + " ./lockstep replay", null},
        };
        for (String[] edit : edits) {
            assertTrue(xml.contains(edit[0]), edit[0]);
            String edited = xml.replaceFirst(java.util.regex.Pattern.quote(edit[0]),
                    java.util.regex.Matcher.quoteReplacement(edit[1]));
            if (edit[2] == null) {
                // A failure's text may hold anything, a replay line too, as long as it ends in the seed's own.
                assertEquals("lost\nreplay: ./lockstep replay kv:seed=9", SweepReport.read(Files.writeString(
                        directory.resolve("kept.xml"), edited)).verdicts().get(1).failure());
                continue;
            }
            String message = refusal(directory, edited);
            assertTrue(message.contains(edit[2]), edit[2] + " in " + message);
        }
    }
}
