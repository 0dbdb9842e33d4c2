package dev.lockstep.demo;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The machine-readable report of a seed sweep or of one shard of it: a JUnit XML file (one {@code testcase} per
 * seed, a {@code failure} for each failed seed whose text ends in the line that replays it), which any CI system
 * shows as test results, and beside it a {@code .failures} file with one replay line per failed seed. Reports of
 * the shards of one sweep {@linkplain #merge merge} into the report of the whole sweep, after a check that they
 * are the same sweep, that no seed ran twice and that every shard is there.
 *
 * <p>XML is written and read with the JDK's own {@code javax.xml}, so the report needs no library.
 */
public final class SweepReport {
    private static final String SUITE = "lockstep explore";

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
        Files.writeString(xml, toXml(report), StandardCharsets.UTF_8);
        StringBuilder failures = new StringBuilder();
        for (Verdict verdict : report.failures()) {
            failures.append("./lockstep replay ").append(verdict.replayLine()).append('\n');
        }
        Files.writeString(xml.resolveSibling(xml.getFileName().toString().replace(".xml", ".failures")), failures,
                StandardCharsets.UTF_8);
        return xml;
    }

    static String toXml(Report report) {
        try {
            Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
            Element suite = document.createElement("testsuite");
            document.appendChild(suite);
            suite.setAttribute("name", SUITE + (report.shard().count() == 1 ? "" : " shard " + report.shard()));
            suite.setAttribute("tests", Integer.toString(report.verdicts().size()));
            suite.setAttribute("failures", Integer.toString(report.failures().size()));
            suite.setAttribute("errors", "0");
            suite.setAttribute("skipped", "0");
            Element properties = document.createElement("properties");
            suite.appendChild(properties);
            Map<String, String> all = new LinkedHashMap<>(report.sweep());
            all.put("shard", report.shard().toString());
            for (Map.Entry<String, String> entry : all.entrySet()) {
                Element property = document.createElement("property");
                property.setAttribute("name", "lockstep." + entry.getKey());
                property.setAttribute("value", entry.getValue());
                properties.appendChild(property);
            }
            for (Verdict verdict : report.verdicts()) {
                Element testcase = document.createElement("testcase");
                testcase.setAttribute("classname", "lockstep.explore." + report.sweep().get("workload"));
                testcase.setAttribute("name", "seed " + verdict.seed());
                if (!verdict.passed()) {
                    Element failure = document.createElement("failure");
                    String first = verdict.failure().lines().findFirst().orElse("failed");
                    failure.setAttribute("message", first);
                    failure.setAttribute("type", "SeedFailed");
                    failure.setTextContent(verdict.failure() + "\nreplay: ./lockstep replay " + verdict.replayLine());
                    testcase.appendChild(failure);
                }
                Element out = document.createElement("system-out");
                out.setTextContent("replay: " + verdict.replayLine() + "\ndigest: " + verdict.digest() + "\n");
                testcase.appendChild(out);
                suite.appendChild(testcase);
            }
            var transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.INDENT, "yes");
            transformer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
            StringWriter text = new StringWriter();
            transformer.transform(new DOMSource(document), new StreamResult(text));
            return text.toString();
        } catch (ParserConfigurationException | TransformerException broken) {
            throw new IllegalStateException("the JDK's XML support failed", broken);
        }
    }

    /**
     * Reads a report that {@link #write} wrote.
     *
     * @param xml the JUnit XML file
     * @return the report
     * @throws IOException if reading fails
     * @throws IllegalArgumentException naming the file if it is not such a report
     */
    public static Report read(Path xml) throws IOException {
        Document document;
        try {
            javax.xml.parsers.DocumentBuilder builder = DocumentBuilderFactory.newInstance().newDocumentBuilder();
            // Throws on a fatal error, prints nothing: the exception says what is wrong (the default handler also
            // writes it to standard error).
            builder.setErrorHandler(new org.xml.sax.helpers.DefaultHandler());
            document = builder.parse(xml.toFile());
        } catch (ParserConfigurationException | SAXException bad) {
            throw new IllegalArgumentException(xml + " is not a readable JUnit XML report: " + bad.getMessage());
        }
        Element suite = document.getDocumentElement();
        if (!suite.getTagName().equals("testsuite") || !suite.getAttribute("name").startsWith(SUITE)) {
            throw new IllegalArgumentException(xml + " is not a report of lockstep explore");
        }
        Map<String, String> sweep = new LinkedHashMap<>();
        NodeList properties = suite.getElementsByTagName("property");
        for (int i = 0; i < properties.getLength(); i++) {
            Element property = (Element) properties.item(i);
            sweep.put(property.getAttribute("name").replaceFirst("^lockstep\\.", ""), property.getAttribute("value"));
        }
        String shardText = sweep.remove("shard");
        if (shardText == null) {
            throw new IllegalArgumentException(xml + " names no shard");
        }
        List<Verdict> verdicts = new ArrayList<>();
        NodeList cases = suite.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element testcase = (Element) cases.item(i);
            long seed = Long.parseLong(testcase.getAttribute("name").replaceFirst("^seed ", ""));
            NodeList failures = testcase.getElementsByTagName("failure");
            String failure = "";
            if (failures.getLength() > 0) {
                String text = failures.item(0).getTextContent();
                int replay = text.lastIndexOf("\nreplay: ");
                failure = replay < 0 ? text : text.substring(0, replay);
            }
            String replayLine = "";
            String digest = "";
            NodeList outs = testcase.getElementsByTagName("system-out");
            if (outs.getLength() > 0) {
                for (String line : outs.item(0).getTextContent().split("\n")) {
                    if (line.startsWith("replay: ")) {
                        replayLine = line.substring(8);
                    } else if (line.startsWith("digest: ")) {
                        digest = line.substring(8);
                    }
                }
            }
            verdicts.add(new Verdict(seed, failures.getLength() == 0, failure, replayLine, digest));
        }
        return new Report(sweep, Shard.parse(shardText), verdicts);
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
     * @throws IllegalArgumentException naming the problem if the reports are of different sweeps, are cut into
     *                                  different numbers of shards, repeat a shard or a seed, miss a shard, or do
     *                                  not cover exactly the sweep's seeds
     */
    public static Report merge(List<Report> shards) {
        if (shards.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge: no reports given");
        }
        Map<String, String> sweep = shards.getFirst().sweep();
        int count = shards.getFirst().shard().count();
        boolean[] present = new boolean[count];
        TreeMap<Long, Verdict> bySeed = new TreeMap<>();
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
            for (Verdict verdict : report.verdicts()) {
                if (bySeed.put(verdict.seed(), verdict) != null) {
                    throw new IllegalArgumentException("seed " + verdict.seed() + " is in two reports");
                }
            }
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
        long first = Long.parseLong(sweep.get("firstSeed"));
        int seeds = Integer.parseInt(sweep.get("seeds"));
        for (long seed = first; seed < first + seeds; seed++) {
            if (!bySeed.containsKey(seed)) {
                throw new IllegalArgumentException("seed " + seed + " of the sweep is in no report");
            }
        }
        if (bySeed.size() != seeds) {
            throw new IllegalArgumentException("the reports hold " + bySeed.size() + " seeds, the sweep has " + seeds);
        }
        return new Report(sweep, Shard.ALL, List.copyOf(bySeed.values()));
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
