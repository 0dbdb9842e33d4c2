package dev.lockstep.demo;

import dev.lockstep.demo.SweepReport.Report;
import dev.lockstep.demo.SweepReport.Verdict;
import dev.lockstep.demo.kv.InjectedBug;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads a {@link SweepReport}'s JUnit XML back and checks it as it goes: the layout {@link SweepReport#writeXml}
 * writes and nothing else, the sweep's properties ({@link Sweep}), every seed in its place with the replay line and
 * digest its run prints, and the counts. A report comes from another process or machine; one cut short, edited or
 * forged is refused with an {@link IllegalArgumentException} naming the problem and the line.
 */
final class SweepReportReader {
    private SweepReportReader() {
    }

    /** The sweep properties every report has, in the order {@link SweepReport#write} writes them, then the shard. */
    private static final List<String> PROPERTIES = List.of("firstSeed", "seeds", "faults", "workload", "bug",
            "shard");

    /**
     * What a report's properties say, checked: the seeds are a range that fits in a {@code long}, and the faults,
     * workload and bug are ones explore takes.
     */
    record Sweep(long firstSeed, int seeds, String faults, Workload workload, InjectedBug bug) {
        static Sweep of(Map<String, String> properties) {
            for (String key : PROPERTIES.subList(0, PROPERTIES.size() - 1)) {
                if (properties.get(key) == null) {
                    throw new IllegalArgumentException("the sweep property " + key + " is missing");
                }
            }
            if (properties.size() != PROPERTIES.size() - 1) {
                throw new IllegalArgumentException("unknown sweep properties in " + properties);
            }
            long first;
            int seeds;
            try {
                first = Decimal.parseLong(properties.get("firstSeed"));
                seeds = Decimal.parseInt(properties.get("seeds"));
            } catch (NumberFormatException bad) {
                throw new IllegalArgumentException("the sweep's firstSeed or seeds is not a number: "
                        + bad.getMessage());
            }
            if (seeds < 1) {
                throw new IllegalArgumentException("the sweep has " + seeds + " seeds; explore sweeps at least 1");
            }
            if (first > Long.MAX_VALUE - (seeds - 1)) {
                // first + seeds would wrap to negative seeds, and every check of the range with it.
                throw new IllegalArgumentException("the sweep of " + seeds + " seeds from " + first
                        + " goes past the largest seed, " + Long.MAX_VALUE);
            }
            String faults = properties.get("faults");
            Explorer.faultsFor(faults, first); // names an unknown fault
            return new Sweep(first, seeds, faults, Workload.parse(properties.get("workload")),
                    InjectedBug.parse(properties.get("bug")));
        }

        /** The replay line explore prints for a seed of this sweep whose run ended with {@code digest}. */
        String replayLine(long seed, String digest) {
            return Explorer.replayLine(new Scenario.Spec(seed, Explorer.faultsFor(faults, seed), workload, bug),
                    digest);
        }
    }

    /** Where the reader is: the elements it accepts follow {@link SweepReport#writeXml}'s layout and nothing else. */
    private enum Place { SUITE, PROPERTIES, PROPERTY, TESTCASE }

    /**
     * Reads the report as it goes ({@link SweepReport#writeXml}'s reason), refusing document type declarations: a report is
     * data from another machine, and its entities must not reach files or the network. Every seed is checked as
     * it is read, so a forged report is refused at its first wrong seed, whatever its size.
     */
    static Report read(Path xml, java.io.InputStream in) throws XMLStreamException {
        XMLInputFactory factory = XMLInputFactory.newInstance();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        XMLStreamReader reader = factory.createXMLStreamReader(in);
        try {
            reader.nextTag();
            String suiteName = reader.getAttributeValue(null, "name");
            if (!reader.getLocalName().equals("testsuite") || suiteName == null || !suiteName.startsWith(SweepReport.SUITE)) {
                throw new IllegalArgumentException(xml + " is not a report of lockstep explore");
            }
            try {
                return readSuite(reader, suiteName);
            } catch (IllegalArgumentException malformed) {
                throw new IllegalArgumentException(xml + " is not a report of lockstep explore: "
                        + malformed.getMessage() + " (line " + reader.getLocation().getLineNumber() + ")");
            }
        } finally {
            reader.close();
        }
    }

    private static Report readSuite(XMLStreamReader reader, String suiteName) throws XMLStreamException {
        long declaredTests = Decimal.parseLong(attribute(reader, "tests"));
        long declaredFailures = Decimal.parseLong(attribute(reader, "failures"));
        Map<String, String> properties = new LinkedHashMap<>();
        boolean propertiesRead = false;
        Sweep sweep = null;
        Shard shard = null;
        long[] seeds = null;
        List<Verdict> verdicts = new ArrayList<>();
        long failures = 0;
        Place place = Place.SUITE;
        long seed = 0;
        String failure = null;
        String systemOut = null;
        while (true) {
            int event = reader.next();
            if (event == XMLStreamConstants.START_ELEMENT) {
                String name = reader.getLocalName();
                switch (place) {
                    case SUITE -> {
                        if (name.equals("properties") && !propertiesRead) {
                            place = Place.PROPERTIES;
                        } else if (name.equals("testcase") && propertiesRead) {
                            if (verdicts.size() == seeds.length) {
                                throw new IllegalArgumentException("more test cases than the " + seeds.length
                                        + " seeds of shard " + shard);
                            }
                            long expected = seeds[verdicts.size()];
                            String caseName = attribute(reader, "name");
                            if (!caseName.startsWith("seed ")) {
                                throw new IllegalArgumentException("test case '" + caseName + "' is not 'seed N'");
                            }
                            seed = Decimal.parseLong(caseName.substring(5));
                            if (seed != expected) {
                                throw new IllegalArgumentException("test case seed " + seed + " where shard "
                                        + shard + " of the sweep has seed " + expected);
                            }
                            String classname = attribute(reader, "classname");
                            if (!classname.equals("lockstep.explore." + sweep.workload().cliName())) {
                                throw new IllegalArgumentException("seed " + seed + " has classname '" + classname
                                        + "', not the sweep's workload");
                            }
                            failure = null;
                            systemOut = null;
                            place = Place.TESTCASE;
                        } else {
                            throw unexpected(name, "testsuite");
                        }
                    }
                    case PROPERTIES -> {
                        if (!name.equals("property")) {
                            throw unexpected(name, "properties");
                        }
                        String key = attribute(reader, "name");
                        if (!key.startsWith("lockstep.") || !PROPERTIES.contains(key.substring(9))) {
                            throw new IllegalArgumentException("unknown property '" + key + "'");
                        }
                        if (properties.put(key.substring(9), attribute(reader, "value")) != null) {
                            throw new IllegalArgumentException("property '" + key + "' given twice");
                        }
                        place = Place.PROPERTY;
                    }
                    case TESTCASE -> {
                        if (name.equals("failure") && failure == null && systemOut == null) {
                            failure = reader.getElementText();
                        } else if (name.equals("system-out") && systemOut == null) {
                            systemOut = reader.getElementText();
                        } else {
                            throw unexpected(name, "the test case of seed " + seed);
                        }
                    }
                    case PROPERTY -> throw unexpected(name, "property");
                }
            } else if (event == XMLStreamConstants.END_ELEMENT) {
                switch (place) {
                    case PROPERTY -> place = Place.PROPERTIES;
                    case PROPERTIES -> {
                        String shardText = properties.remove("shard");
                        if (shardText == null) {
                            throw new IllegalArgumentException("the report names no shard");
                        }
                        shard = Shard.parse(shardText);
                        sweep = Sweep.of(properties);
                        String expectedName = SweepReport.SUITE + (shard.count() == 1 ? "" : " shard " + shard);
                        if (!suiteName.equals(expectedName)) {
                            throw new IllegalArgumentException("the suite is named '" + suiteName + "' but holds"
                                    + " shard " + shard);
                        }
                        seeds = shard.seeds(sweep.firstSeed(), sweep.seeds());
                        if (declaredTests != seeds.length) {
                            throw new IllegalArgumentException("tests=\"" + declaredTests + "\" where shard " + shard
                                    + " of the sweep has " + seeds.length + " seeds");
                        }
                        propertiesRead = true;
                        place = Place.SUITE;
                    }
                    case TESTCASE -> {
                        Verdict verdict = verdict(sweep, seed, failure, systemOut);
                        failures += verdict.passed() ? 0 : 1;
                        verdicts.add(verdict);
                        place = Place.SUITE;
                    }
                    case SUITE -> {
                        // The end of the test suite: a report cut short and then closed ends here too early.
                        if (!propertiesRead) {
                            throw new IllegalArgumentException("the report has no sweep properties");
                        }
                        if (verdicts.size() != seeds.length) {
                            throw new IllegalArgumentException("the report holds " + verdicts.size() + " of the "
                                    + seeds.length + " seeds of shard " + shard + "; the first missing is seed "
                                    + seeds[verdicts.size()]);
                        }
                        if (failures != declaredFailures) {
                            throw new IllegalArgumentException("failures=\"" + declaredFailures + "\" but "
                                    + failures + " test cases failed");
                        }
                        while (reader.hasNext()) {
                            reader.next(); // the parser refuses anything but comments and spaces after the root
                        }
                        return new Report(properties, shard, verdicts);
                    }
                }
            } else if (event == XMLStreamConstants.CHARACTERS && !reader.isWhiteSpace()) {
                throw new IllegalArgumentException("text '" + reader.getText().strip() + "' where "
                        + place.name().toLowerCase(Locale.ROOT) + " has none");
            }
        }
    }

    /**
     * A test case's verdict, checked against the sweep: its {@code system-out} holds exactly the replay line
     * explore prints for the seed and the run's digest, and a failure's text ends in that replay line.
     */
    private static Verdict verdict(Sweep sweep, long seed, String failureText, String systemOut) {
        if (systemOut == null) {
            throw new IllegalArgumentException("seed " + seed + " has no system-out (its replay line and digest)");
        }
        String[] lines = systemOut.split("\n", -1);
        if (lines.length != 3 || !lines[0].startsWith("replay: ") || !lines[1].startsWith("digest: ")
                || !lines[2].isEmpty()) {
            throw new IllegalArgumentException("seed " + seed + "'s system-out is not 'replay: LINE' and"
                    + " 'digest: HEX' lines");
        }
        String replayLine = lines[0].substring(8);
        String digest = lines[1].substring(8);
        if (!digest.isEmpty() && !Scenario.ReplayLine.isHex(digest, Scenario.ReplayLine.WHOLE_DIGEST_DIGITS)) {
            throw new IllegalArgumentException("seed " + seed + " has digest '" + digest + "', not "
                    + Scenario.ReplayLine.WHOLE_DIGEST_DIGITS + " lower-case hex digits");
        }
        String expectedLine = sweep.replayLine(seed, digest);
        if (!replayLine.equals(expectedLine)) {
            throw new IllegalArgumentException("seed " + seed + " has replay line '" + replayLine + "', but the"
                    + " sweep's seed " + seed + " with that digest replays as '" + expectedLine + "'");
        }
        if (failureText == null) {
            return new Verdict(seed, true, "", replayLine, digest);
        }
        String tail = "\nreplay: ./lockstep replay " + replayLine;
        if (!failureText.endsWith(tail) || failureText.length() == tail.length()) {
            throw new IllegalArgumentException("seed " + seed + "'s failure is not a problem followed by the line"
                    + " that replays it");
        }
        return new Verdict(seed, false, failureText.substring(0, failureText.length() - tail.length()), replayLine,
                digest);
    }

    private static String attribute(XMLStreamReader reader, String name) {
        String value = reader.getAttributeValue(null, name);
        if (value == null) {
            throw new IllegalArgumentException("<" + reader.getLocalName() + "> has no " + name + "=");
        }
        return value;
    }

    private static IllegalArgumentException unexpected(String element, String where) {
        return new IllegalArgumentException("unexpected <" + element + "> in " + where);
    }
}
