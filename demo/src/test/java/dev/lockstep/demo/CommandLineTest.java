package dev.lockstep.demo;

import static dev.lockstep.demo.CommandLineRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line refuses bad usage with status 2 and a message naming the bad value, before any work starts. */
class CommandLineTest {
    @Test
    void unknownOptionIsAUsageErrorNamingIt() {
        CommandLineRun outcome = run("demo", "--bogus", "1");
        assertEquals(2, outcome.status());
        assertTrue(outcome.errors().contains("--bogus"), outcome.errors());
    }

    @Test
    void respRefusesBadValuesNamingThem() {
        CommandLineRun fsync = run("resp", "--dir", "unused", "--fsync", "sometimes");
        assertEquals(2, fsync.status());
        assertTrue(fsync.errors().contains("--fsync must be always or everysec, was 'sometimes'"), fsync.errors());
        CommandLineRun port = run("resp", "--dir", "unused", "--port", "70000");
        assertEquals(2, port.status());
        assertTrue(port.errors().contains("--port must be 0 to 65535, was 70000"), port.errors());
        CommandLineRun workers = run("resp", "--dir", "unused", "--workers", "0");
        assertEquals(2, workers.status());
        assertTrue(workers.errors().contains("--workers must be at least 1, was 0"), workers.errors());
        CommandLineRun noDir = run("resp");
        assertEquals(2, noDir.status());
        assertTrue(noDir.errors().contains("--dir"), noDir.errors());
    }

    @Test
    void tooFewSeedsNamesTheValue() {
        CommandLineRun outcome = run("explore", "--seeds", "0");
        assertEquals(2, outcome.status());
        assertTrue(outcome.errors().contains("--seeds must be at least 1, was 0"), outcome.errors());
    }

    @Test
    void unknownWorkloadAndFaultAndBugNameTheirValues() {
        CommandLineRun workload = run("explore", "--workload", "nope");
        assertEquals(2, workload.status());
        assertTrue(workload.errors().contains("nope"), workload.errors());
        CommandLineRun faults = run("explore", "--faults", "gremlins");
        assertEquals(2, faults.status());
        assertTrue(faults.errors().contains("gremlins"), faults.errors());
        CommandLineRun bug = run("demo", "--quick", "--inject-bug", "nonsense");
        assertEquals(2, bug.status());
        assertTrue(bug.errors().contains("nonsense"), bug.errors());
    }

    @Test
    void aProfileThatOnlyStartsWithSwarmIsAUsageErrorNamingIt() {
        // swarm and swarm+crash are the swarm profiles; anything else starting with "swarm" was let through and
        // the sweep then died with an IllegalArgumentException's stack trace and status 1.
        for (String profile : new String[] {"swarmy", "swarm+partition"}) {
            CommandLineRun outcome = run("explore", "--seeds", "1", "--threads", "1", "--faults", profile);
            assertEquals(2, outcome.status(), outcome.errors());
            assertTrue(outcome.errors().contains("unknown fault"), outcome.errors());
            assertTrue(!outcome.errors().contains("\tat "), outcome.errors());
            // The message names the profile, lists the kinds once and the profiles only explore takes.
            assertTrue(outcome.errors().contains("--faults " + profile + ":"), outcome.errors());
            assertEquals(1, outcome.errors().split("torn-writes", -1).length - 1, outcome.errors());
            assertTrue(outcome.errors().contains("swarm+crash"), outcome.errors());
        }
    }

    @Test
    void aSweepPastTheLargestSeedIsRefusedNamingIt() {
        // It wrapped: seeds 9223372036854775807, -9223372036854775808, ... were run.
        for (String command : new String[] {"explore", "demo"}) {
            CommandLineRun outcome = run(command, "--first-seed", Long.toString(Long.MAX_VALUE), "--seeds", "3");
            assertEquals(2, outcome.status(), outcome.errors());
            assertTrue(outcome.errors().contains("--first-seed 9223372036854775807 with --seeds 3 goes past the"
                    + " largest seed"), outcome.errors());
        }
        CommandLineRun last = run("explore", "--first-seed", Long.toString(Long.MAX_VALUE - 1), "--seeds", "2",
                "--faults", "none");
        assertEquals(0, last.status(), last.errors());
    }

    @Test
    void aBugOfOneWorkloadIsRefusedWithTheOther() {
        CommandLineRun replication = run("explore", "--seeds", "1", "--inject-bug", "figure-8");
        assertEquals(2, replication.status());
        assertTrue(replication.errors().contains("--inject-bug figure-8 is a Raft bug: it needs --workload"
                + " replicated or replicated-5"), replication.errors());
        CommandLineRun store = run("explore", "--seeds", "1", "--workload", "replicated", "--inject-bug", "ack-before-sync");
        assertEquals(2, store.status());
        assertTrue(store.errors().contains("--inject-bug ack-before-sync is in the key-value store"), store.errors());
    }

    @Test
    void aFaultTheReplicatedWorkloadNeverInjectsIsRefusedWhenNamed() throws Exception {
        // Named one by one, a kind the cluster never injects would pass every seed untried: refused, naming it and
        // what the workload does inject. "all" and the swarm profiles stay accepted: they say which kinds apply.
        CommandLineRun named = run("explore", "--seeds", "1", "--workload", "replicated", "--faults", "partition+sync-errors");
        assertEquals(2, named.status());
        assertTrue(named.errors().contains("--faults sync-errors is not injected by --workload replicated, which"
                + " injects crash, torn-writes, partition, connection-reset"), named.errors());
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        int status = Main.explore(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8),
                new Explorer.Settings(1, 1, "all", Workload.REPLICATED, InjectedBug.NONE, 1, false), null);
        String output = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, status, output);
        assertTrue(output.contains("faults all (of which this workload injects crash, torn-writes, partition,"
                + " connection-reset)"), output);
        assertTrue(output.matches("(?s).*storage failures that hit the service +not injected by this workload.*"),
                output);
    }

    @Test
    void aSweepTooLongForTheHeapIsRefusedBeforeItStartsAndAShardOfItIsNot() {
        // 2,000,000,000 seeds in one process would need hundreds of GB of results: refused at once, naming the
        // value and the way out, instead of an OutOfMemoryError. A shard small enough to fit is accepted.
        CommandLineRun outcome = run("explore", "--seeds", "2000000000");
        assertEquals(2, outcome.status());
        assertTrue(outcome.errors().contains("--seeds 2000000000 is 2,000,000,000 seeds in one process"),
                outcome.errors());
        assertTrue(outcome.errors().contains("--shard K/N") && outcome.errors().contains("--merge"), outcome.errors());
        CommandLineRun demo = run("demo", "--seeds", "2000000000");
        assertEquals(2, demo.status());
        assertTrue(demo.errors().contains("--seeds 2000000000 is 2,000,000,000 seeds in one process"), demo.errors());
        assertEquals(2_097_152, Explorer.seedsThatFit(2L << 30), "a 2 GiB heap keeps two million seeds' results");
        assertEquals(1, new Shard(1999, 2000).size(2000), "the shard's own seeds are what is kept");
        assertEquals(1_000_000, new Shard(0, 2000).size(2_000_000_000));
        assertEquals(1, Explorer.seedsThatFit(0));
    }

    @Test
    void theWholePrintedReplayLineIsAccepted() {
        // What explore, demo and a report's .failures file print: "replay: ./lockstep replay kv:...".
        Scenario.Spec spec = Scenario.Spec.parse("replay: ./lockstep replay kv:seed=2:faults=crash"
                + ":digest=0123456789abcdef");
        assertEquals(Scenario.Spec.parse("kv:seed=2:faults=crash"), spec);
        assertEquals(spec, Scenario.Spec.parse("replay: lockstep replay kv:seed=2:faults=crash"));
    }

    @Test
    void aBadReplayLineIsAUsageErrorNamingWhatIsWrong() {
        String[][] lines = {
            {"garbage line", "a replay line starts with 'kv:', was 'garbage line'"},
            {"kv:seed=abc", "replay line seed 'abc' is not a number"},
            {"kv:seed=2:faults=bogus", "unknown fault 'bogus'"},
            {"kv:seed=2:workload=nope", "nope"},
            {"kv:faults=crash", "replay line has no seed"},
            {"kv:seed=2:colour=red", "unknown replay line field 'colour'"},
            // An empty digest was taken as a prefix of any digest: "an exact replay" of whatever ran.
            {"kv:seed=2:digest=", "replay line digest '' is not the 16 lower-case hex digits"},
            {"kv:seed=2:digest=zz", "replay line digest 'zz' is not the 16 lower-case hex digits"},
            // One hex digit matched one run in sixteen, any of them "an exact replay".
            {"kv:seed=2:digest=a", "replay line digest 'a' is not the 16 lower-case hex digits"},
            {"kv:seed=2:digest=0123456789ABCDEF", "digest '0123456789ABCDEF' is not"},
            // Long.parseLong reads Arabic-Indic and full-width digits and a '+': the line shows no seed 12.
            {"kv:seed=\u0661\u0662", "replay line seed '\u0661\u0662' is not a number"},
            {"kv:seed=\uFF11\uFF12", "is not a number"},
            {"kv:seed=+12", "replay line seed '+12' is not a number"},
            {"kv:seed=99999999999999999999", "out of the range"},
            // Which of two values wins is a guess: refused, not the last one silently.
            {"kv:seed=2:seed=3", "has seed= twice"},
            {"kv:seed=2:faults=crash:faults=none", "has faults= twice"},
            {"kv:seed=2:digest=0123456789abcdef:digest=0123456789abcdee", "has digest= twice"},
            {"kv:seed=2:", "has an empty field"},
            {"kv:seed=2::faults=crash", "has an empty field"},
            {"kv:seed=2:faults=", "an empty fault profile"},
            {"kv:seed=2:faults=crash+crash", "names crash twice"},
            {"kv:seed=2:faults=crash@NaN", "bad intensity 'NaN'"},
            {"kv:seed=2 :faults=crash", "has a space in it"},
            // Ran without the bug while printing "bug ack-before-sync": explore refuses these pairs.
            {"kv:seed=2:workload=replicated:bug=ack-before-sync", "bug=ack-before-sync is in the key-value store"},
            {"kv:seed=2:bug=figure-8", "bug=figure-8 is a Raft bug"},
        };
        for (String[] line : lines) {
            CommandLineRun outcome = run("replay", line[0]);
            assertEquals(2, outcome.status(), line[0]);
            assertTrue(outcome.errors().contains(line[1]), line[0] + ": " + outcome.errors());
            assertTrue(!outcome.errors().contains("\tat "), "no stack trace: " + outcome.errors());
        }
        CommandLineRun negative = run("replay", "--trace", "-1", "kv:seed=2");
        assertEquals(2, negative.status());
        assertTrue(negative.errors().contains("--trace"), negative.errors());
    }

    @Test
    void numbersAreDecimalAsciiDigitsOnly() {
        // picocli's converters read 010 as octal 8, and Arabic-Indic digits and a '+' as a number.
        for (String bad : new String[] {"\u0661\u0662", "+5", "0x10", "\uFF15", "1_000"}) {
            CommandLineRun outcome = run("explore", "--seeds", bad, "--faults", "none");
            assertEquals(2, outcome.status(), bad + ": " + outcome.errors());
            assertTrue(outcome.errors().contains("'" + bad + "' is not a whole number in decimal digits"),
                    outcome.errors());
            CommandLineRun firstSeed = run("explore", "--first-seed", bad);
            assertEquals(2, firstSeed.status(), bad + ": " + firstSeed.errors());
        }
        CommandLineRun shard = run("explore", "--shard", "\u0660/2");
        assertEquals(2, shard.status(), shard.errors());
        assertTrue(shard.errors().contains("whole numbers in decimal digits"), shard.errors());
        assertEquals(new Shard(1, 10), Shard.parse("1/010"));
    }

    @Test
    void emptyOptionsAreRefusedNamingThem() {
        // --faults '' ran with no faults at all; --report '' and --merge '' meant the current directory.
        CommandLineRun faults = run("explore", "--seeds", "1", "--faults", "");
        assertEquals(2, faults.status(), faults.errors());
        assertTrue(faults.errors().contains("an empty fault profile ''"), faults.errors());
        CommandLineRun blank = run("explore", "--seeds", "1", "--faults", " @2");
        assertEquals(2, blank.status(), blank.errors());
        assertTrue(blank.errors().contains("an empty fault profile"), blank.errors());
        CommandLineRun report = run("explore", "--seeds", "1", "--report", "");
        assertEquals(2, report.status(), report.errors());
        assertTrue(report.errors().contains("--report") && report.errors().contains("an empty path"),
                report.errors());
        CommandLineRun merge = run("explore", "--merge", "");
        assertEquals(2, merge.status(), merge.errors());
        assertTrue(merge.errors().contains("an empty path"), merge.errors());
    }

    @Test
    void aMergeWithSweepOptionsIsRefusedNamingThem() {
        // The merge takes the sweep from its reports; --seeds was ignored without a word.
        for (String[] option : new String[][] {{"--seeds", "5"}, {"--first-seed", "3"}, {"--faults", "none"},
                {"--workload", "mixed"}, {"--inject-bug", "none"}, {"--shard", "0/2"}, {"--threads", "1"}}) {
            CommandLineRun outcome = run("explore", "--merge", "reports", option[0], option[1]);
            assertEquals(2, outcome.status(), outcome.errors());
            assertTrue(outcome.errors().contains("--merge takes the sweep from its reports; " + option[0]
                    + " cannot be given with it"), outcome.errors());
        }
    }

    @Test
    void replayTellsAnExactReplayFromADifferentRunByItsExitStatus() {
        Scenario.Spec spec = new Scenario.Spec(1, dev.lockstep.testing.FaultConfig.NONE, Workload.MIXED,
                InjectedBug.NONE);
        java.io.PrintStream quiet = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        String digest = Scenario.run(spec, 0).digest();
        assertEquals(Main.PASSED, Main.replay(quiet, new Scenario.ReplayLine(spec, digest.substring(0, 16)), 0));
        String other = (digest.charAt(0) == '0' ? "1" : "0") + digest.substring(1, 16);
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        int status = Main.replay(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8),
                new Scenario.ReplayLine(spec, other), 0);
        String output = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(Main.DIFFERENT_RUN, status, output);
        assertTrue(output.contains("DIFFERENT from the digest in the line (" + other + ")"), output);
        assertEquals(Main.PASSED, Main.replay(quiet, new Scenario.ReplayLine(spec, null), 0), "no digest to compare");
    }

    @Test
    void aReportDirectoryThatCannotBeMadeIsRefusedBeforeTheSweep(@org.junit.jupiter.api.io.TempDir java.nio.file.Path
            temporary) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(temporary.resolve("a-file"), "x");
        CommandLineRun outcome = run("explore", "--seeds", "1", "--report", file.resolve("reports").toString());
        assertEquals(2, outcome.status());
        assertTrue(outcome.errors().contains("--report " + file.resolve("reports") + ": the directory cannot be made"),
                outcome.errors());
        assertTrue(outcome.output().isEmpty() && !outcome.errors().contains("exploring"), "no seed ran");
    }

    @Test
    void moreClientsThanTheOpenFileLimitAllowsAreRefused() {
        // With 2,000 clients under a limit of 1,024 the connections failed and the SIGKILL did nothing (the JDK
        // could not open /proc to check the pid), so the demo waited for ever for its service to die.
        CommandLine line = Main.commandLine();
        CommandLine.ParameterException refused = assertThrows(CommandLine.ParameterException.class,
                () -> Main.enoughOpenFiles(line, 2000, 1024));
        assertEquals("--clients 2000 needs about 2,100 open files in each of the demo's two processes, and this one"
                + " may open 1,024 (ulimit -n): lower --clients, or raise the limit (ulimit -n 2100)",
                refused.getMessage());
        Main.enoughOpenFiles(line, 64, 1024); // the default fits the smallest usual limit
        Main.enoughOpenFiles(line, 924, 1024);
        assertTrue(Main.openFileLimit() > 0);
        CommandLineRun huge = run("demo", "--clients", "2000000000");
        assertEquals(2, huge.status());
        assertTrue(huge.errors().contains("--clients 2000000000 needs about 2,000,000,100 open files"), huge.errors());
    }

    @Test
    void notANumberIsAUsageError() {
        CommandLineRun outcome = run("demo", "--duration", "ten");
        assertEquals(2, outcome.status());
        assertTrue(outcome.errors().contains("ten"), outcome.errors());
    }

    @Test
    void noCommandAsksForOne() {
        CommandLineRun outcome = run();
        assertEquals(2, outcome.status());
        assertTrue(outcome.errors().contains("a command is needed"), outcome.errors());
    }

    @Test
    void helpListsTheCommandsAndTheBugNames() {
        CommandLineRun top = run("--help");
        assertEquals(0, top.status());
        assertTrue(top.output().contains("demo") && top.output().contains("explore")
                && top.output().contains("replay"), top.output());
        CommandLineRun demo = run("demo", "--help");
        assertEquals(0, demo.status());
        assertTrue(demo.output().contains("--quick"), demo.output());
        assertTrue(demo.output().contains("ack-before-sync"), demo.output());
    }

    @Test
    void theScriptsHelpListsEveryOptionOfEveryCommand() throws Exception {
        // ./lockstep help is the script's own text, shown without a build: it left out --shard, --report,
        // --merge and --threads. Every option of every command Main has must be in it.
        String script = java.nio.file.Files.readString(java.nio.file.Path.of("..", "lockstep"));
        String help = script.substring(script.indexOf("usage() {"), script.indexOf("\nUSAGE\n"));
        for (CommandLine command : Main.commandLine().getSubcommands().values()) {
            if (command.getCommandSpec().usageMessage().hidden()) {
                continue;
            }
            assertTrue(help.contains("\n  " + command.getCommandName() + " "), "command " + command.getCommandName());
            for (CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
                if (option.usageHelp() || option.versionHelp()) {
                    continue;
                }
                assertTrue(help.contains(" " + option.longestName() + " "), command.getCommandName() + " "
                        + option.longestName() + " is not in ./lockstep help");
            }
        }
    }

    @Test
    void versionNamesTheVersionAndTheCommit() {
        String before = System.getProperty("lockstep.commit");
        System.setProperty("lockstep.commit", "0123456789ab");
        try {
            CommandLineRun outcome = run("--version");
            assertEquals(0, outcome.status());
            // Classes from a directory carry no manifest: the version says so rather than printing nothing.
            assertTrue(outcome.output().matches("lockstep (\\S+|\\(unpackaged build\\)) \\(commit 0123456789ab\\)\\R"),
                    outcome.output());
        } finally {
            if (before == null) {
                System.clearProperty("lockstep.commit");
            } else {
                System.setProperty("lockstep.commit", before);
            }
        }
    }

    @Test
    void checkingTheArgumentsRunsNothing() {
        // The script checks explore's arguments before it trains the JVM's cache: a typo must not wait for it.
        System.setProperty(Main.CHECK_ARGUMENTS_PROPERTY, "true");
        try {
            CommandLineRun good = run("explore", "--seeds", "100000", "--threads", "1");
            assertEquals(0, good.status(), good.errors());
            assertTrue(good.output().isEmpty(), "no sweep ran: " + good.output());
            CommandLineRun bad = run("explore", "--bogus");
            assertEquals(2, bad.status());
            assertTrue(bad.errors().contains("--bogus"), bad.errors());
        } finally {
            System.clearProperty(Main.CHECK_ARGUMENTS_PROPERTY);
        }
    }
}
