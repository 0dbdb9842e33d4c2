package dev.lockstep.conformance;

import dev.lockstep.Turns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Differential: the same seeded sequence of storage operations ({@link StorageWorkload}) and network operations
 * ({@link NetworkWorkload}) on runtime-sim and runtime-uring gives the same transcript, byte for byte and error
 * for error, with one and two workers. A line may differ only where {@code differences.md} whitelists its
 * operation, with the reason.
 */
@Group(ReadmeGroup.DIFFERENTIAL)
class DifferentialTest {
    private static final Pattern ENTRY = Pattern.compile("^- `(.+?)`");

    /** The whitelist of {@code differences.md}: one pattern per entry. */
    static List<Pattern> whitelist() {
        try (InputStream in = DifferentialTest.class.getResourceAsStream("/differences.md")) {
            assertNotNull(in, "differences.md is on the test class path");
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int start = text.indexOf("## Whitelist");
            int end = text.indexOf("\n## ", start + 1);
            List<Pattern> patterns = new ArrayList<>();
            for (String line : text.substring(start, end < 0 ? text.length() : end).split("\n")) {
                Matcher matcher = ENTRY.matcher(line);
                if (matcher.find()) {
                    patterns.add(Pattern.compile(matcher.group(1)));
                }
            }
            return patterns;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String operation(String line) {
        int arrow = line.indexOf(" -> ");
        return arrow < 0 ? line : line.substring(0, arrow);
    }

    /**
     * Compares two transcripts, allowing whitelisted operations to differ.
     *
     * @return the whitelisted lines that did differ
     */
    static List<String> compare(List<String> sim, List<String> uring, List<Pattern> whitelist) {
        List<String> allowed = new ArrayList<>();
        if (sim.size() != uring.size()) {
            fail("transcripts differ in length (" + sim.size() + " vs " + uring.size() + ")\nsim:\n"
                    + String.join("\n", sim) + "\nuring:\n" + String.join("\n", uring));
        }
        for (int i = 0; i < sim.size(); i++) {
            String a = sim.get(i);
            String b = uring.get(i);
            if (a.equals(b)) {
                continue;
            }
            String op = operation(a);
            if (op.equals(operation(b)) && whitelist.stream().anyMatch(p -> p.matcher(op).matches())) {
                allowed.add("sim: " + a + " | uring: " + b);
                continue;
            }
            fail("line " + (i + 1) + " differs and is not whitelisted in differences.md:\n  sim:   " + a
                    + "\n  uring: " + b);
        }
        return allowed;
    }

    private static List<String> transcript(RuntimeConfig config, long seed) {
        List<StorageWorkload.Op> plan = StorageWorkload.plan(
                StorageWorkload.random(new SplittableRandom(seed), 60), true);
        try (Runtimes runtimes = new Runtimes(config, Conformance.DEFAULT_RING)) {
            Probe probe = runtimes.probe();
            return runtimes.runner().start(ctx -> {
                List<String> lines = new ArrayList<>(StorageWorkload.run(ctx, plan));
                lines.addAll(NetworkWorkload.run(ctx, probe, seed));
                Turns.drained(ctx, runtimes::requestsOutstanding);
                return lines;
            });
        }
    }

    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233})
    void sameSeedSameResultsOnBothRuntimes(long seed) {
        List<Pattern> whitelist = whitelist();
        for (int workers = 1; workers <= 2; workers++) {
            List<String> sim = transcript(RuntimeConfig.sim(seed, workers), seed);
            List<String> uring = transcript(RuntimeConfig.uring(workers), seed);
            dump("seed-" + seed + "-workers-" + workers + "-sim.txt", sim);
            dump("seed-" + seed + "-workers-" + workers + "-uring.txt", uring);
            List<String> allowed = compare(sim, uring, whitelist);
            assertFalse(sim.isEmpty());
            for (String line : allowed) {
                System.out.println("differential seed=" + seed + " workers=" + workers + " whitelisted: " + line);
            }
        }
    }

    /** Keeps a transcript under {@code target/differential/} for whoever reads a failure. */
    private static void dump(String name, List<String> transcript) {
        try {
            java.nio.file.Path directory = java.nio.file.Path.of("target", "differential");
            java.nio.file.Files.createDirectories(directory);
            java.nio.file.Files.write(directory.resolve(name), transcript);
        } catch (IOException ignored) {
            // Only a convenience.
        }
    }

    /** The simulator is deterministic: the same seed twice gives the same transcript (and digest). */
    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {4, 9})
    void theSimulatorRepeatsItself(long seed) {
        assertEquals(transcript(RuntimeConfig.sim(seed, 2), seed), transcript(RuntimeConfig.sim(seed, 2), seed));
    }

    /** The whitelist parses, and a difference outside it fails while one inside passes. */
    @Test
    void unlistedDifferencesFail() {
        assertNotNull(whitelist());
        List<Pattern> whitelist = List.of(Pattern.compile("net: bind 127\\.0\\.0\\.1:0 on worker 1"));
        AssertionErrorHolder holder = new AssertionErrorHolder();
        try {
            compare(List.of("net: dial c0 -> ok"), List.of("net: dial c0 -> ConnectionFailedException"), whitelist);
        } catch (AssertionError expected) {
            holder.error = expected;
        }
        assertNotNull(holder.error, "a difference outside the whitelist must fail");
        assertEquals(1, compare(List.of("net: bind 127.0.0.1:0 on worker 1 -> BindFailedException"),
                List.of("net: bind 127.0.0.1:0 on worker 1 -> ok"), whitelist).size());
    }

    private static final class AssertionErrorHolder {
        AssertionError error;
    }
}
