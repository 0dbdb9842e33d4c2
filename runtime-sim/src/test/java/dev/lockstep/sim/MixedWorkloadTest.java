package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Determinism of the whole simulator through the public API, on {@link MixedWorkload}: the same seed gives the
 * same digest (and the same result), different seeds give different digests, and the digests of 16 fixed seeds
 * match the ones pinned in {@code src/test/resources/pinned-digests.txt}.
 */
class MixedWorkloadTest {

    static final int SEEDS = 500;
    static final String PINNED = "pinned-digests.txt";
    /** Set to {@code write} to rewrite the pinned file (see its header). */
    static final String REGENERATE_PROPERTY = "lockstep.pinDigests";

    /** One run: its result, digest and counts. */
    record Run(String result, String digest, SimStats stats) {
    }

    static Run run(long seed) {
        SimRunner runner = SimRunner.of(MixedWorkload.config(seed));
        String result = runner.start(MixedWorkload::run);
        return new Run(result, runner.digest(), runner.stats());
    }

    @Test
    void sameSeedTwiceGivesTheSameDigestAndDifferentSeedsDiffer() {
        Set<String> digests = new HashSet<>();
        Set<String> results = new HashSet<>();
        long steps = 0;
        long io = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Run first = run(seed);
            Run second = run(seed);
            assertEquals(first, second, "seed " + seed + " is not deterministic");
            assertTrue(digests.add(first.digest()), "seed " + seed + " repeated another seed's digest");
            results.add(first.result());
            steps += first.stats().fiberSteps();
            io += first.stats().ioOperations();
        }
        assertEquals(SEEDS, digests.size());
        // The workload really varies: partitions, faults and breaks take different paths for different seeds.
        assertTrue(results.size() > SEEDS / 2, "only " + results.size() + " distinct results over " + SEEDS + " seeds");
        assertTrue(steps / SEEDS > 50 && io / SEEDS > 50, "the workload is too small: " + steps / SEEDS
                + " steps and " + io / SEEDS + " I/O operations per run");
    }

    @Test
    void theWorkloadHitsFaultsTimeoutsAndPartitions() {
        StringBuilder all = new StringBuilder();
        for (long seed = 1; seed <= 60; seed++) {
            all.append(run(seed).result()).append('\n');
        }
        String text = all.toString();
        for (String expected : new String[] {"StorageIoException", "TimeoutException", "ConnectionFailedException",
                "m0-00002", "m1-00002", "chaos"}) {
            assertTrue(text.contains(expected), "no run of 60 saw " + expected + ":\n" + text);
        }
    }

    @Test
    void digestsOfSixteenSeedsArePinned() throws IOException {
        Map<Long, String> actual = new LinkedHashMap<>();
        for (long seed = 1; seed <= 16; seed++) {
            actual.put(seed * 1_000_003L, run(seed * 1_000_003L).digest());
        }
        if ("write".equals(System.getProperty(REGENERATE_PROPERTY))) {
            Path source = Path.of("src", "test", "resources", PINNED);
            List<String> lines = new ArrayList<>(header(source));
            actual.forEach((seed, digest) -> lines.add(seed + " " + digest));
            Files.write(source, lines, StandardCharsets.UTF_8);
            fail("rewrote " + source.toAbsolutePath() + " with " + actual.size() + " digests: review the diff,"
                    + " commit it with the reason, and run the tests again without -D" + REGENERATE_PROPERTY);
        }
        Map<Long, String> pinned = readPinned();
        assertEquals(16, pinned.size(), "the pinned file must hold 16 digests");
        List<String> mismatches = new ArrayList<>();
        pinned.forEach((seed, digest) -> {
            if (!digest.equals(actual.get(seed))) {
                mismatches.add("seed " + seed + ": pinned " + digest + ", now " + actual.get(seed));
            }
        });
        assertTrue(mismatches.isEmpty(), "the simulator's behaviour changed for " + mismatches.size()
                + " of 16 pinned seeds:\n" + String.join("\n", mismatches) + "\nIf the change is intended, regenerate"
                + " the pinned digests as the header of src/test/resources/" + PINNED + " says.");
    }

    private static List<String> header(Path source) throws IOException {
        List<String> header = new ArrayList<>();
        if (Files.exists(source)) {
            for (String line : Files.readAllLines(source, StandardCharsets.UTF_8)) {
                if (line.startsWith("#") || line.isBlank()) {
                    header.add(line);
                }
            }
        }
        return header;
    }

    private static Map<Long, String> readPinned() throws IOException {
        Map<Long, String> pinned = new LinkedHashMap<>();
        try (InputStream in = MixedWorkloadTest.class.getResourceAsStream("/" + PINNED)) {
            if (in == null) {
                fail(PINNED + " is missing from the test resources");
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String trimmed = line.strip();
                if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                    continue;
                }
                String[] fields = trimmed.split("\\s+");
                pinned.put(Long.parseLong(fields[0]), fields[1]);
            }
        }
        return pinned;
    }
}
