package dev.lockstep.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The machine-readable report of a seed sweep or of one shard of it: a JUnit XML file (one {@code testcase} per
 * seed, a {@code failure} for each failed seed whose text ends in the line that replays it), which any CI system
 * shows as test results, and beside it a {@code .failures} file with one replay line per failed seed. Reports of
 * the shards of one sweep {@linkplain #merge merge} into the report of the whole sweep, after a check that they
 * are the same sweep, that no seed ran twice and that every shard is there.
 *
 * <p>Reading a report, and checking it, is {@link SweepReportReader}'s. XML is written and read with the JDK's own {@code javax.xml.stream}, so the report needs no library, one
 * test case at a time, so a report of millions of seeds needs no document tree in memory.
 */
public final class SweepReport {
    /** The name of every report's {@code testsuite}, followed by the shard's for a shard's. */
    static final String SUITE = "lockstep explore";

    /**
     * One seed's verdict as a report records it.
     *
     * @param seed the seed
     * @param passed whether it passed
     * @param failure the failure text, empty if it passed
     * @param replayLine the line {@code ./lockstep replay} takes
     * @param digest the audit digest of the seed's run
     */
    public record Verdict(long seed, boolean passed, String failure, String replayLine, String digest) {
    }

    /**
     * A whole report.
     *
     * @param sweep what was swept: first seed, seeds, faults, workload, bug (equal for every shard of one sweep)
     * @param shard the shard, or {@link Shard#ALL} for a whole or merged sweep
     * @param verdicts the seeds, in seed order
     */
    public record Report(Map<String, String> sweep, Shard shard, List<Verdict> verdicts) {
        /**
         * The failed seeds.
         *
         * @return the verdicts that did not pass, in seed order
         */
        public List<Verdict> failures() {
            return verdicts.stream().filter(verdict -> !verdict.passed()).toList();
        }
    }

    private SweepReport() {
    }

    /**
     * The report of a sweep that ran.
     *
     * @param settings what was swept
     * @param summary what it found
     * @return the report
     */
    public static Report of(Explorer.Settings settings, Explorer.Summary summary) {
        List<Verdict> verdicts = new ArrayList<>();
        for (Scenario.Result result : summary.results()) {
            verdicts.add(new Verdict(result.spec().seed(), result.passed(),
                    result.passed() ? "" : result.failure(), Explorer.replayLine(result), result.digest()));
        }
        return new Report(sweepOf(settings), settings.shard(), verdicts);
    }

    private static Map<String, String> sweepOf(Explorer.Settings settings) {
        Map<String, String> sweep = new LinkedHashMap<>();
        sweep.put("firstSeed", Long.toString(settings.firstSeed()));
        sweep.put("seeds", Integer.toString(settings.seeds()));
        sweep.put("faults", settings.profile());
        sweep.put("workload", settings.workload().cliName());
        sweep.put("bug", settings.bug().cliName());
        return sweep;
    }

    /**
     * The file name a shard's report gets in a report directory.
     *
     * @param shard the shard
     * @return {@code explore-shard-K-of-N.xml}, or {@code explore.xml} for the whole sweep
     */
    public static String fileName(Shard shard) {
        return shard.count() == 1 ? "explore.xml" : "explore-shard-" + shard.index() + "-of-" + shard.count() + ".xml";
    }

    /**
     * Writes a report into a directory: the JUnit XML file and its {@code .failures} companion.
     *
     * @param directory the directory, created if missing
     * @param report the report
     * @return the XML file written
     * @throws IOException if writing fails
     */
    public static Path write(Path directory, Report report) throws IOException {
        Files.createDirectories(directory);
        Path xml = directory.resolve(fileName(report.shard()));
        try (java.io.Writer out = Files.newBufferedWriter(xml, StandardCharsets.UTF_8)) {
            writeXml(report, out);
        }
        StringBuilder failures = new StringBuilder();
        for (Verdict verdict : report.failures()) {
            failures.append("./lockstep replay ").append(verdict.replayLine()).append('\n');
        }
        Files.writeString(xml.resolveSibling(xml.getFileName().toString().replace(".xml", ".failures")), failures,
                StandardCharsets.UTF_8);
        return xml;
    }

    /**
     * Writes the report's XML as it goes, one test case at a time: a merged sweep of a million seeds is a file of
     * about 300 MB, which a document tree in memory would need several times over.
     */
    static void writeXml(Report report, java.io.Writer out) throws IOException {
        try {
            XMLStreamWriter xml = XMLOutputFactory.newInstance().createXMLStreamWriter(out);
            xml.writeStartDocument("UTF-8", "1.0");
            xml.writeCharacters("\n");
            xml.writeStartElement("testsuite");
            xml.writeAttribute("name", SUITE + (report.shard().count() == 1 ? "" : " shard " + report.shard()));
            xml.writeAttribute("tests", Integer.toString(report.verdicts().size()));
            xml.writeAttribute("failures", Long.toString(report.verdicts().stream().filter(v -> !v.passed()).count()));
            xml.writeAttribute("errors", "0");
            xml.writeAttribute("skipped", "0");
            xml.writeCharacters("\n    ");
            xml.writeStartElement("properties");
            Map<String, String> all = new LinkedHashMap<>(report.sweep());
            all.put("shard", report.shard().toString());
            for (Map.Entry<String, String> entry : all.entrySet()) {
                xml.writeCharacters("\n        ");
                xml.writeEmptyElement("property");
                xml.writeAttribute("name", "lockstep." + entry.getKey());
                xml.writeAttribute("value", entry.getValue());
            }
            xml.writeCharacters("\n    ");
            xml.writeEndElement();
            String classname = "lockstep.explore." + report.sweep().get("workload");
            for (Verdict verdict : report.verdicts()) {
                xml.writeCharacters("\n    ");
                xml.writeStartElement("testcase");
                xml.writeAttribute("classname", classname);
                xml.writeAttribute("name", "seed " + verdict.seed());
                if (!verdict.passed()) {
                    xml.writeCharacters("\n        ");
                    xml.writeStartElement("failure");
                    xml.writeAttribute("message", legal(verdict.failure().lines().findFirst().orElse("failed")));
                    xml.writeAttribute("type", "SeedFailed");
                    writeText(xml, verdict.failure() + "\nreplay: ./lockstep replay " + verdict.replayLine());
                    xml.writeEndElement();
                }
                xml.writeCharacters("\n        ");
                xml.writeStartElement("system-out");
                writeText(xml, "replay: " + verdict.replayLine() + "\ndigest: " + verdict.digest() + "\n");
                xml.writeEndElement();
                xml.writeCharacters("\n    ");
                xml.writeEndElement();
            }
            xml.writeCharacters("\n");
            xml.writeEndElement();
            xml.writeCharacters("\n");
            xml.writeEndDocument();
            xml.flush();
            xml.close();
        } catch (XMLStreamException broken) {
            throw new IOException("writing the report failed: " + broken.getMessage(), broken);
        }
    }

    /**
     * Writes text so that it reads back as it was: a carriage return as {@code &#13;} (a parser turns a raw one, and
     * a CR LF, into a line feed), and a character XML 1.0 cannot hold at all (a control character such as ESC or
     * NUL, an unpaired surrogate) as the six characters of its {@code \\uXXXX} escape, the one change a read shows.
     */
    private static void writeText(XMLStreamWriter xml, String text) throws XMLStreamException {
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\r') {
                xml.writeCharacters(legal(text.substring(start, i)));
                xml.writeEntityRef("#13");
                start = i + 1;
            }
        }
        xml.writeCharacters(legal(text.substring(start)));
    }

    /** {@code text} with every character XML 1.0 cannot hold replaced by its {@code \\uXXXX} escape. */
    private static String legal(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pairedSurrogate = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            boolean legal = c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD) || pairedSurrogate;
            if (pairedSurrogate) {
                if (out != null) {
                    out.append(c).append(text.charAt(i + 1));
                }
                i++;
                continue;
            }
            if (!legal && out == null) {
                out = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (out != null) {
                if (legal) {
                    out.append(c);
                } else {
                    out.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
                }
            }
        }
        return out == null ? text : out.toString();
    }

    /**
     * Reads a report that {@link #write} wrote, checking that it is whole and consistent: a report comes from
     * another process or machine, and one that was cut short, edited or forged must not merge into a sweep that
     * looks complete.
     *
     * @param xml the JUnit XML file
     * @return the report
     * @throws IOException if reading fails
     * @throws IllegalArgumentException naming the file and the problem if it is not such a report: not well-formed
     *                                  XML (a file cut short is not), an element {@link #write} does not write, a
     *                                  sweep property missing, repeated, unknown or out of range, a seed that is
     *                                  not this shard's next one (or missing), a replay line or digest that is not
     *                                  the one the seed's run prints, or counts in {@code testsuite} that are not
     *                                  the test cases'
     */
    public static Report read(Path xml) throws IOException {
        try (java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(xml))) {
            return SweepReportReader.read(xml, in);
        } catch (XMLStreamException bad) {
            throw new IllegalArgumentException(xml + " is not a readable JUnit XML report: " + bad.getMessage());
        }
    }

    /**
     * Reads every report in the given files and directories ({@code *.xml} directly inside a directory).
     *
     * @param paths report files or directories holding them
     * @return the reports, in path order
     * @throws IOException if listing or reading fails
     * @throws IllegalArgumentException if a path holds no report
     */
    public static List<Report> readAll(List<Path> paths) throws IOException {
        List<Report> reports = new ArrayList<>();
        for (Path path : paths) {
            if (Files.isDirectory(path)) {
                List<Path> files;
                try (Stream<Path> listing = Files.list(path)) {
                    files = listing.filter(file -> file.getFileName().toString().endsWith(".xml")).sorted().toList();
                }
                if (files.isEmpty()) {
                    throw new IllegalArgumentException(path + " holds no report (*.xml)");
                }
                for (Path file : files) {
                    reports.add(read(file));
                }
            } else if (Files.isRegularFile(path)) {
                reports.add(read(path));
            } else {
                throw new IllegalArgumentException("no report at " + path);
            }
        }
        return reports;
    }

    /**
     * Merges the reports of the shards of one sweep into the report of the whole sweep.
     *
     * @param shards the shards' reports, in any order
     * @return the whole sweep's report, seeds in order
     * @throws IllegalArgumentException naming the problem if the sweep's properties are missing or out of range
     *                                  (a range past {@link Long#MAX_VALUE}), the reports are of different sweeps,
     *                                  are cut into different numbers of shards, repeat a shard, miss a shard, or
     *                                  a shard does not hold exactly its seeds of the sweep, in order
     */
    public static Report merge(List<Report> shards) {
        if (shards.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge: no reports given");
        }
        Map<String, String> sweep = shards.getFirst().sweep();
        SweepReportReader.Sweep checked = SweepReportReader.Sweep.of(sweep);
        int count = shards.getFirst().shard().count();
        boolean[] present = new boolean[count];
        List<List<Verdict>> byShard = new ArrayList<>(java.util.Collections.nCopies(count, null));
        for (Report report : shards) {
            if (!report.sweep().equals(sweep)) {
                throw new IllegalArgumentException("reports of different sweeps: " + sweep + " and " + report.sweep());
            }
            if (report.shard().count() != count) {
                throw new IllegalArgumentException("reports cut into " + count + " and " + report.shard().count()
                        + " shards");
            }
            if (present[report.shard().index()]) {
                throw new IllegalArgumentException("shard " + report.shard() + " given twice");
            }
            present[report.shard().index()] = true;
            // Each shard's seeds exactly, in order: together the shards are then exactly the sweep's seeds, each
            // once, whatever the first seed (a check of the range by first + seeds wrapped near Long.MAX_VALUE).
            long[] expected = report.shard().seeds(checked.firstSeed(), checked.seeds());
            List<Verdict> verdicts = report.verdicts();
            for (int i = 0; i < Math.max(expected.length, verdicts.size()); i++) {
                if (i >= verdicts.size()) {
                    throw new IllegalArgumentException("seed " + expected[i] + " of the sweep is in no report");
                }
                if (i >= expected.length || verdicts.get(i).seed() != expected[i]) {
                    throw new IllegalArgumentException("shard " + report.shard() + " holds seed "
                            + verdicts.get(i).seed() + (i < expected.length ? " where the sweep has seed "
                            + expected[i] : ", past its " + expected.length + " seeds"));
                }
            }
            byShard.set(report.shard().index(), verdicts);
        }
        List<String> missing = new ArrayList<>();
        for (int index = 0; index < count; index++) {
            if (!present[index]) {
                missing.add(index + "/" + count);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("shard report(s) missing: " + String.join(", ", missing));
        }
        // Position p of the sweep is shard p % count's verdict p / count: interleaved back into seed order.
        List<Verdict> merged = new ArrayList<>(checked.seeds());
        for (int position = 0; position < checked.seeds(); position++) {
            merged.add(byShard.get(position % count).get(position / count));
        }
        return new Report(sweep, Shard.ALL, List.copyOf(merged));
    }

    /**
     * A one-line account of a report, for the console.
     *
     * @param report the report
     * @return seeds, failures and what was swept
     */
    public static String describe(Report report) {
        return String.format(Locale.ROOT, "%d seeds from %s (faults %s, workload %s, bug %s): %d failed",
                report.verdicts().size(), report.sweep().get("firstSeed"), report.sweep().get("faults"),
                report.sweep().get("workload"), report.sweep().get("bug"), report.failures().size());
    }
}
