package dev.lockstep.demo;

import static dev.lockstep.demo.CommandLineRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.usertest.UnsyncedCounterFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code explore --test} sweeps a user's own {@code @SimulationTest} method from the class path they name, with a
 * strategy, shards, a report and a stop at the first failure, and prints for each failure the {@code replay --test}
 * command that reruns exactly that run of that method.
 */
class TestSweepTest {
    private static final String FIXTURE = UnsyncedCounterFixture.class.getName() + "#acknowledgedValuesSurviveACrash";
    /** Where Maven compiled the fixture: the user's class path. */
    private static final String CLASS_PATH = "target/test-classes";

    /** The arguments of the {@code ./lockstep replay ...} command a sweep printed for its first failure. */
    private static List<String> replayArguments(String output) {
        String command = output.lines().filter(l -> l.startsWith("  replay: ./lockstep ")).findFirst()
                .orElseThrow(() -> new AssertionError("no replay command in:\n" + output))
                .substring("  replay: ./lockstep ".length());
        int open = command.indexOf('\'');
        int close = command.lastIndexOf('\'');
        List<String> args = new ArrayList<>(Arrays.asList(command.substring(0, open).trim().split(" ")));
        args.add(command.substring(open + 1, close));
        args.addAll(Arrays.asList(command.substring(close + 1).trim().split(" ")));
        return args;
    }

    @Test
    void exploreFindsThePlantedBugInAUsersTestAndItsReplayCommandReproducesIt(@TempDir Path reports)
            throws Exception {
        for (String strategy : List.of("random", "guided")) {
            CommandLineRun sweep = run("explore", "--test", FIXTURE, "--classpath", CLASS_PATH, "--seeds", "40",
                    "--strategy", strategy, "--stop-at-first-failure", "--report", reports.toString());
            assertEquals(Main.FAILED, sweep.status(), sweep.output() + sweep.errors());
            assertTrue(sweep.output().contains("1 failed"), sweep.output());
            assertTrue(sweep.output().contains("acknowledged"), sweep.output());
            List<String> replay = replayArguments(sweep.output());
            assertEquals(List.of("replay", "--test", FIXTURE, "--classpath", CLASS_PATH), replay.subList(0, 5),
                    sweep.output());
            CommandLineRun again = run(replay.toArray(String[]::new));
            assertEquals(Main.FAILED, again.status(), again.output() + again.errors());
            assertTrue(again.output().contains("an exact replay"), again.output());

            String report = Files.readString(reports.resolve(FIXTURE + ".txt"));
            assertTrue(report.contains("strategy: " + strategy) && report.contains(" 1 failed"), report);
            assertTrue(report.contains("  replay: " + replay.get(5)), report + "\n" + replay);
        }
    }

    @Test
    void shardsOfAUsersSweepRunEachSeedOnce() {
        int runs = 0;
        for (int shard = 0; shard < 2; shard++) {
            CommandLineRun part = run("explore", "--test", FIXTURE, "--classpath", CLASS_PATH, "--seeds", "5",
                    "--first-seed", "1000", "--shard", shard + "/2");
            String summary = part.output().lines().filter(l -> l.matches("\\d+ runs?: .*")).findFirst()
                    .orElseThrow(() -> new AssertionError(part.output() + part.errors()));
            runs += Integer.parseInt(summary.substring(0, summary.indexOf(' ')));
            assertTrue(part.output().contains("lockstep.shard=" + shard + "/2"), part.output());
        }
        assertEquals(5, runs);
    }

    @Test
    void aReplayWhoseDigestIsNotTheRunsExitsWithThree() {
        CommandLineRun sweep = run("explore", "--test", FIXTURE, "--classpath", CLASS_PATH, "--stop-at-first-failure");
        List<String> replay = new ArrayList<>(replayArguments(sweep.output()));
        replay.set(replay.size() - 1, "0123456789abcdef");
        CommandLineRun other = run(replay.toArray(String[]::new));
        assertEquals(Main.DIFFERENT_RUN, other.status(), other.output());
    }

    @Test
    void badUsageNamesTheValue(@TempDir Path empty) {
        record Bad(String named, String... args) {
        }
        for (Bad bad : List.of(
                new Bad("com.acme.Missing", "explore", "--test", "com.acme.Missing#m", "--classpath", CLASS_PATH),
                new Bad("noSuchMethod", "explore", "--test", UnsyncedCounterFixture.class.getName() + "#noSuchMethod",
                        "--classpath", CLASS_PATH),
                new Bad("/no/such/dir", "explore", "--test", FIXTURE, "--classpath", "/no/such/dir"),
                new Bad("--classpath", "explore", "--test", FIXTURE),
                new Bad("--workload", "explore", "--test", FIXTURE, "--classpath", CLASS_PATH, "--workload",
                        "replicated"),
                new Bad("smart", "explore", "--test", FIXTURE, "--classpath", CLASS_PATH, "--strategy", "smart"),
                new Bad("no seeds", "explore", "--test", FIXTURE, "--classpath", CLASS_PATH, "--seeds", "2",
                        "--shard", "3/4"),
                new Bad("has no @SimulationTest", "explore", "--test", TestSweepTest.class.getName(), "--classpath",
                        CLASS_PATH),
                new Bad("CLASS#METHOD", "replay", "--test", UnsyncedCounterFixture.class.getName(), "--classpath",
                        CLASS_PATH, "seed=1"),
                new Bad("0xfeed", "replay", "--test", FIXTURE, "--classpath", CLASS_PATH, "--digest", "0xfeed",
                        "seed=1"))) {
            CommandLineRun outcome = run(bad.args());
            assertEquals(Main.USAGE, outcome.status(), String.join(" ", bad.args()) + "\n" + outcome.output());
            assertTrue(outcome.errors().contains(bad.named()), bad.named() + " not in: " + outcome.errors());
        }
        // A replay text the method's extension refuses: the run does not start, and the value is named.
        CommandLineRun text = run("replay", "--test", FIXTURE, "--classpath", CLASS_PATH, "seed=1", "colour=red");
        assertEquals(Main.USAGE, text.status(), text.output());
        assertTrue(text.output().contains("colour"), text.output());
    }
}
