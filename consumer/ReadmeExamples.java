import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;

/**
 * Extracts the README's examples into the consumer project, as printed, and checks its Maven snippets against the
 * consumer's POM. Run with {@code java ReadmeExamples.java README CONSUMER_DIR LOCKSTEP_VERSION}; it writes
 * {@code CONSUMER_DIR/target/readme} and exits 1 naming each problem.
 *
 * <ul>
 *   <li>A {@code java} block that is a compilation unit (it declares a top-level class) is written as it is: into
 *       the test sources if it holds a test ({@code @Test}, {@code @SimulationTest}, {@code @Property}), else into
 *       the main sources. The user code such a test uses, which the README names by its path in this repository
 *       instead of printing it, is copied from there without its package line, so it sits beside the test.</li>
 *   <li>Any other {@code java} block is a fragment: the scaffold in {@code consumer/scaffolds} with the line
 *       {@code // README: <the block's first line>} gets the block in that line's place, at its indentation. A
 *       fragment with no scaffold, or a scaffold whose block the README no longer has, is a problem.</li>
 *   <li>An {@code xml} block's dependencies must be the consumer's (version and scope), and each plugin's
 *       configuration in it must be in the consumer's plugin of that name.</li>
 *   <li>A program's output, as the paragraph after its block says ({@code It prints `a`, then `b`.}), goes to
 *       {@code target/readme/NAME.expected}; the {@code sh} block after the heading {@code ## Launching a program}
 *       goes to {@code target/readme/launch.sh}, whose every line consumer/check runs.</li>
 * </ul>
 */
public class ReadmeExamples {
    private static final Pattern BLOCK = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```$", Pattern.DOTALL);
    private static final Pattern TOP_LEVEL_CLASS =
            Pattern.compile("(?m)^(?:public )?(?:final )?(?:class|record|interface) (\\w+)");
    private static final Pattern MARKER = Pattern.compile("(?m)^([ \\t]*)// README: (.*)$");
    private static final Pattern REPOSITORY_SOURCE =
            Pattern.compile("`([\\w/.-]+/src/test/java/[\\w/]+/(\\w+)\\.java)`");

    private final List<String> problems = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: java ReadmeExamples.java README CONSUMER_DIR LOCKSTEP_VERSION");
            System.exit(2);
        }
        ReadmeExamples examples = new ReadmeExamples();
        int written = examples.extract(Path.of(args[0]), Path.of(args[1]), args[2]);
        if (!examples.problems.isEmpty()) {
            System.err.println("README examples: " + examples.problems.size() + " problem(s):");
            examples.problems.forEach(problem -> System.err.println("  " + problem));
            System.exit(1);
        }
        System.out.println("README examples: " + written + " source files in " + args[1] + "/target/readme");
    }

    record Block(String language, String text, int line, int end) {
        String firstLine() {
            return text.lines().findFirst().orElse("").strip();
        }
    }

    private int extract(Path readmePath, Path consumer, String version) throws Exception {
        String readme = Files.readString(readmePath);
        Path repository = readmePath.toAbsolutePath().getParent();
        Path out = consumer.resolve("target/readme");
        deleteRecursively(out);
        Path main = Files.createDirectories(out.resolve("main"));
        Path test = Files.createDirectories(out.resolve("test"));
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(readme);
        while (matcher.find()) {
            blocks.add(new Block(matcher.group(1), matcher.group(2), lineOf(readme, matcher.start()), matcher.end()));
        }
        Map<String, Path> scaffolds = scaffolds(consumer.resolve("scaffolds"));
        Map<String, Map<String, String>> printedConfiguration = new LinkedHashMap<>();
        Set<String> spliced = new LinkedHashSet<>();
        Map<String, String> units = new LinkedHashMap<>();
        int written = 0;
        for (Block block : blocks) {
            switch (block.language()) {
                case "java" -> {
                    Matcher unit = TOP_LEVEL_CLASS.matcher(block.text());
                    if (unit.find()) {
                        String name = unit.group(1);
                        boolean isTest = Stream.of("@Test", "@SimulationTest", "@Property")
                                .anyMatch(block.text()::contains);
                        Files.writeString((isTest ? test : main).resolve(name + ".java"), block.text());
                        units.put(name, block.text());
                        written++;
                        if (!isTest) {
                            expectedOutput(readme, block, name, out);
                        }
                    } else if (scaffolds.containsKey(block.firstLine())) {
                        spliced.add(block.firstLine());
                    } else {
                        problems.add("README line " + block.line() + ": the fragment starting '" + block.firstLine()
                                + "' has no scaffold: add one to consumer/scaffolds with the line '// README: "
                                + block.firstLine() + "' where the fragment goes");
                    }
                }
                case "xml" -> checkPom(block, consumer.resolve("pom.xml"), version, printedConfiguration);
                default -> {
                }
            }
        }
        checkNothingUnprinted(consumer.resolve("pom.xml"), printedConfiguration);
        written += writeScaffolds(blocks, scaffolds, spliced, test);
        written += copyUserCode(readme, repository, units, test);
        launchCommands(readme, blocks, out);
        return written;
    }

    /** Each scaffold's file by the first line of each fragment it takes. */
    private Map<String, Path> scaffolds(Path directory) throws IOException {
        Map<String, Path> byFirstLine = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                Matcher marker = MARKER.matcher(Files.readString(file));
                boolean any = false;
                while (marker.find()) {
                    any = true;
                    Path earlier = byFirstLine.put(marker.group(2).strip(), file);
                    if (earlier != null) {
                        problems.add(earlier + " and " + file + " both take the fragment starting '"
                                + marker.group(2).strip() + "'");
                    }
                }
                if (!any) {
                    problems.add(file + " has no '// README: ' line");
                }
            }
        }
        return byFirstLine;
    }

    private int writeScaffolds(List<Block> blocks, Map<String, Path> scaffolds, Set<String> spliced, Path test)
            throws IOException {
        int written = 0;
        for (Path file : new LinkedHashSet<>(scaffolds.values())) {
            String source = Files.readString(file);
            String result = MARKER.matcher(source).replaceAll(marker -> {
                String firstLine = marker.group(2).strip();
                Block block = spliced.contains(firstLine) ? blocks.stream().filter(b -> b.language().equals("java")
                        && b.firstLine().equals(firstLine)).findFirst().orElseThrow() : null;
                if (block == null) {
                    problems.add(file + " takes the README fragment starting '" + firstLine
                            + "', which the README no longer has");
                    return Matcher.quoteReplacement(marker.group());
                }
                StringBuilder fragment = new StringBuilder();
                block.text().lines().forEach(line -> fragment.append(fragment.isEmpty() ? "" : "\n")
                        .append(line.isEmpty() ? "" : marker.group(1) + line));
                return Matcher.quoteReplacement(fragment.toString());
            });
            Files.writeString(test.resolve(file.getFileName()), result);
            written++;
        }
        return written;
    }

    /** The repository's source files the README names by path, used by a printed unit and not printed themselves. */
    private int copyUserCode(String readme, Path repository, Map<String, String> units, Path test)
            throws IOException {
        int written = 0;
        Set<String> copied = new LinkedHashSet<>();
        Matcher named = REPOSITORY_SOURCE.matcher(readme);
        while (named.find()) {
            String name = named.group(2);
            if (units.containsKey(name) || copied.contains(name)) {
                continue;
            }
            Pattern use = Pattern.compile("\\b" + name + "\\b");
            if (units.values().stream().noneMatch(unit -> use.matcher(unit).find())) {
                continue;
            }
            Path source = repository.resolve(named.group(1));
            if (!Files.isRegularFile(source)) {
                problems.add("the README names " + named.group(1) + ", which does not exist");
                continue;
            }
            String text = Files.readString(source).replaceFirst("(?m)^package [\\w.]+;\\n", "");
            Files.writeString(test.resolve(name + ".java"), text);
            copied.add(name);
            written++;
        }
        return written;
    }

    /** What the paragraph after a program's block says it prints: {@code It prints `a`, then `b`.} */
    private void expectedOutput(String readme, Block block, String name, Path out) throws IOException {
        String after = readme.substring(block.end()).stripLeading();
        String paragraph = after.substring(0, Math.max(0, after.indexOf("\n\n")));
        if (!paragraph.startsWith("It prints ")) {
            problems.add("README line " + block.line() + ": the program " + name + " is not followed by a paragraph"
                    + " 'It prints `...`' saying what it prints");
            return;
        }
        StringBuilder expected = new StringBuilder();
        Matcher quoted = Pattern.compile("`([^`]*)`").matcher(paragraph);
        while (quoted.find()) {
            expected.append(quoted.group(1)).append('\n');
        }
        Files.writeString(out.resolve(name + ".expected"), expected.toString());
    }

    /** The {@code sh} block of the README's launching section: the commands that start a program. */
    private void launchCommands(String readme, List<Block> blocks, Path out) throws IOException {
        int heading = readme.indexOf("\n## Launching a program");
        if (heading < 0) {
            problems.add("the README has no '## Launching a program' section with the commands that launch one");
            return;
        }
        Block launch = blocks.stream().filter(b -> b.language().equals("sh") && b.end() > heading).findFirst()
                .orElse(null);
        if (launch == null) {
            problems.add("the README's '## Launching a program' has no sh block");
            return;
        }
        Files.writeString(out.resolve("launch.sh"), launch.text());
    }

    // ------------------------------------------------------------------------------------------------ the POM

    /** The consumer builds with no plugin configuration the README does not print. */
    private void checkNothingUnprinted(Path pomFile, Map<String, Map<String, String>> printed) throws Exception {
        Element pom = parse(Files.readString(pomFile));
        for (Element plugin : descendants(child(child(pom, "build"), "plugins"), "plugin")) {
            String name = text(plugin, "artifactId");
            Map<String, String> readme = printed.getOrDefault(name, Map.of());
            leaves(child(plugin, "configuration"), "").forEach((path, value) -> {
                if (!value.equals(readme.get(path))) {
                    problems.add("consumer/pom.xml configures " + name + " with " + path + " = '" + value
                            + "', which no Maven snippet of the README prints");
                }
            });
        }
    }

    private void checkPom(Block block, Path pomFile, String version, Map<String, Map<String, String>> printedAll)
            throws Exception {
        Element snippet = parse("<snippet>" + block.text() + "</snippet>");
        Element pom = parse(Files.readString(pomFile));
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("lockstep.version", version);
        String where = "README line " + block.line() + ": ";
        for (Element dependency : descendants(snippet, "dependency")) {
            String coordinates = text(dependency, "groupId") + ":" + text(dependency, "artifactId");
            Element ours = descendants(child(pom, "dependencies"), "dependency").stream()
                    .filter(d -> (text(d, "groupId") + ":" + text(d, "artifactId")).equals(coordinates))
                    .findFirst().orElse(null);
            if (ours == null) {
                problems.add(where + "the dependency " + coordinates + " is not the consumer's");
                continue;
            }
            String printed = text(dependency, "version");
            if (!printed.equals(resolve(text(ours, "version"), properties))) {
                problems.add(where + coordinates + " has version " + printed + "; the bundle's is " + version);
            }
            if (!text(dependency, "scope").equals(text(ours, "scope"))) {
                problems.add(where + coordinates + " has scope '" + text(dependency, "scope") + "', the consumer's '"
                        + text(ours, "scope") + "'");
            }
        }
        for (Element plugin : descendants(snippet, "plugin")) {
            String name = text(plugin, "artifactId");
            Element ours = descendants(child(child(pom, "build"), "plugins"), "plugin").stream()
                    .filter(p -> text(p, "artifactId").equals(name)).findFirst().orElse(null);
            if (ours == null) {
                problems.add(where + "the plugin " + name + " is not the consumer's");
                continue;
            }
            if (!text(plugin, "version").isEmpty() && !text(plugin, "version").equals(text(ours, "version"))) {
                problems.add(where + name + " has version " + text(plugin, "version") + ", the consumer's "
                        + text(ours, "version"));
            }
            Map<String, String> printed = leaves(child(plugin, "configuration"), "");
            printedAll.computeIfAbsent(name, n -> new LinkedHashMap<>()).putAll(printed);
            Map<String, String> consumers = leaves(child(ours, "configuration"), "");
            printed.forEach((path, value) -> {
                if (!value.equals(consumers.get(path))) {
                    problems.add(where + name + "'s configuration " + path + " is '" + value + "', the consumer's '"
                            + consumers.get(path) + "'");
                }
            });
        }
    }

    private static String resolve(String value, Map<String, String> properties) {
        for (Map.Entry<String, String> property : properties.entrySet()) {
            value = value.replace("${" + property.getKey() + "}", property.getValue());
        }
        return value;
    }

    private static Element parse(String xml) throws Exception {
        Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new InputSource(new StringReader(xml)));
        return document.getDocumentElement();
    }

    private static List<Element> descendants(Element root, String name) {
        List<Element> found = new ArrayList<>();
        if (root == null) {
            return found;
        }
        var list = root.getElementsByTagName(name);
        for (int i = 0; i < list.getLength(); i++) {
            found.add((Element) list.item(i));
        }
        return found;
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    private static String text(Element parent, String name) {
        Element element = child(parent, name);
        return element == null ? "" : element.getTextContent().strip();
    }

    /** Every element without element children under {@code root}, by its path, with its text. */
    private static Map<String, String> leaves(Element root, String path) {
        Map<String, String> leaves = new LinkedHashMap<>();
        if (root == null) {
            return leaves;
        }
        boolean hasChildren = false;
        for (Node node = root.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element) {
                hasChildren = true;
                leaves.putAll(leaves(element, path + "/" + element.getTagName()));
            }
        }
        if (!hasChildren) {
            leaves.put(path, root.getTextContent().strip());
        }
        return leaves;
    }

    // ----------------------------------------------------------------------------------------------- helpers

    private static int lineOf(String text, int offset) {
        return (int) text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
