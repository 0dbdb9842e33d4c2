package dev.lockstep.sim;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.os.SimFileSystem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The crash-consistency model shared by {@link CrashConsistencyProperties} (a property) and
 * {@link CrashConsistencyTest} (seeded JUnit): sequences of writes, syncs, truncates and crashes against one
 * file, each crash checked against a model the test keeps itself: synced bytes are intact, sizes are
 * consistent, and unsynced mutations survive only as the policy allows.
 */
final class CrashModel {

    private CrashModel() {
    }

    private static final int SECTOR = SimFileSystem.SECTOR_BYTES;

    sealed interface Op permits Write, Sync, Truncate, Crash {
    }

    record Write(int offset, int length, boolean dsync) implements Op {
    }

    record Sync() implements Op {
    }

    record Truncate(int size) implements Op {
    }

    record Crash() implements Op {
    }

    /** One mutation the model applied since the last sync: a write with its data, or a resize. */
    private record Pending(boolean resize, long offset, byte[] data, boolean durable) {
    }

    /**
     * Runs the operations against a fresh file system and checks every crash against the model.
     *
     * @return the number of crashes checked
     */
    static int run(long seed, List<Op> ops, CrashPolicy policy) {
        return run(seed, ops, policy, PlantedBug.NONE);
    }

    /** A bug planted in what the file system gives back after a crash, to show the checks find it. */
    enum PlantedBug {
        NONE,
        /** The last byte synced before a crash reads back changed (one bit flipped). */
        FLIPS_THE_LAST_SYNCED_BYTE
    }

    /**
     * As {@link #run(long, List, CrashPolicy)}, with a planted bug.
     *
     * @return the number of crashes checked
     */
    static int run(long seed, List<Op> ops, CrashPolicy policy, PlantedBug bug) {
        int crashesChecked = 0;
        Generator generator = new Generator(seed);
        SimFileSystem fs = new SimFileSystem(generator, new Auditor(), StorageFaults.NONE);
        SimFileSystem.Handle handle = fs.open("/f", O_RDWR | O_CREAT);
        assertEquals(0, fs.sync(fs.open("/", 0), false));
        byte[] synced = new byte[0];
        List<Pending> pending = new ArrayList<>();
        int writeNumber = 0;
        for (Op op : ops) {
            switch (op) {
                case Write write -> {
                    byte[] data = new byte[write.length()];
                    writeNumber++;
                    for (int i = 0; i < data.length; i++) {
                        data[i] = (byte) (writeNumber * 37 + i * 7 + 1);
                    }
                    assertEquals(data.length, fs.write(handle, write.offset(), data, 0, data.length, write.dsync()));
                    pending.add(new Pending(false, write.offset(), data, write.dsync()));
                }
                case Sync ignored -> {
                    assertEquals(0, fs.sync(handle, true));
                    synced = fs.contents("/f");
                    pending.clear();
                }
                case Truncate truncate -> {
                    fs.truncate(handle, truncate.size());
                    pending.add(new Pending(true, truncate.size(), null, false));
                }
                case Crash ignored -> {
                    CrashReport report = fs.crash(policy);
                    byte[] recovered = fs.contents("/f");
                    if (bug == PlantedBug.FLIPS_THE_LAST_SYNCED_BYTE && synced.length > 0
                            && recovered.length >= synced.length) {
                        recovered[synced.length - 1] ^= 1;
                    }
                    check(policy, synced, pending, report, recovered);
                    crashesChecked++;
                    synced = recovered;
                    pending.clear();
                    handle = fs.open("/f", O_RDWR);
                }
            }
        }
        return crashesChecked;
    }

    private static void check(CrashPolicy policy, byte[] synced, List<Pending> pending, CrashReport report,
            byte[] recovered) {
        List<CrashReport.MutationOutcome> outcomes = report.files().getOrDefault("/f", List.of());
        assertEquals(pending.size(), outcomes.size(), "one outcome per unsynced mutation");

        // The report describes exactly the mutations the model issued.
        for (int i = 0; i < pending.size(); i++) {
            Pending mutation = pending.get(i);
            CrashReport.MutationOutcome outcome = outcomes.get(i);
            assertEquals(mutation.resize() ? CrashReport.Kind.RESIZE : CrashReport.Kind.WRITE, outcome.kind());
            assertEquals(mutation.offset(), outcome.offset());
            if (!mutation.resize()) {
                assertEquals(mutation.data().length, outcome.length());
                assertEquals(mutation.durable(), outcome.durable());
                for (CrashReport.Range range : outcome.survived()) {
                    assertTrue(range.offset() >= outcome.offset() && range.end() <= outcome.offset() + outcome.length(),
                            "a surviving range lies inside its write");
                    assertTrue(range.offset() == outcome.offset() || range.offset() % SECTOR == 0,
                            "tears start at sector boundaries");
                    assertTrue(range.end() == outcome.offset() + outcome.length() || range.end() % SECTOR == 0,
                            "tears end at sector boundaries");
                }
            }
            if (mutation.durable()) {
                assertTrue(outcome.wholeSurvived(), "RWF_DSYNC writes always survive");
            }
        }

        // The decisions obey the policy.
        List<CrashReport.MutationOutcome> volatileOutcomes = new ArrayList<>();
        for (CrashReport.MutationOutcome outcome : outcomes) {
            if (!outcome.durable()) {
                volatileOutcomes.add(outcome);
            }
        }
        switch (policy) {
            case ALL_LOST -> volatileOutcomes.forEach(outcome -> assertFalse(outcome.anySurvived()));
            case PREFIX -> {
                int whole = 0;
                while (whole < volatileOutcomes.size() && volatileOutcomes.get(whole).wholeSurvived()) {
                    whole++;
                }
                if (whole < volatileOutcomes.size()) {
                    CrashReport.MutationOutcome torn = volatileOutcomes.get(whole);
                    assertTrue(torn.survived().size() <= 1, "a torn prefix is one range");
                    if (torn.anySurvived()) {
                        assertEquals(CrashReport.Kind.WRITE, torn.kind());
                        assertEquals(torn.offset(), torn.survived().getFirst().offset(), "torn from the start");
                    }
                    for (int i = whole + 1; i < volatileOutcomes.size(); i++) {
                        assertFalse(volatileOutcomes.get(i).anySurvived(), "nothing survives after the prefix");
                    }
                }
            }
            case SUBSET -> {
                // Any subset, any sectors: the per-range checks above are all the policy requires.
            }
        }

        // Rebuilding from the model's own data and the decisions gives exactly the recovered file.
        byte[] expected = synced.clone();
        for (int i = 0; i < pending.size(); i++) {
            Pending mutation = pending.get(i);
            CrashReport.MutationOutcome outcome = outcomes.get(i);
            if (mutation.resize()) {
                if (outcome.anySurvived()) {
                    expected = Arrays.copyOf(expected, (int) mutation.offset());
                }
                continue;
            }
            for (CrashReport.Range range : outcome.survived()) {
                int end = (int) range.end();
                if (end > expected.length) {
                    expected = Arrays.copyOf(expected, end);
                }
                System.arraycopy(mutation.data(), (int) (range.offset() - mutation.offset()), expected,
                        (int) range.offset(), (int) range.length());
            }
        }
        assertArrayEquals(expected, recovered, "the recovered file is the durable image plus what survived");

        // Independently of the report: a byte the model never saw written unsynced is the synced byte.
        boolean anySurvived = outcomes.stream().anyMatch(CrashReport.MutationOutcome::anySurvived);
        if (!anySurvived) {
            assertArrayEquals(synced, recovered, "with nothing surviving, the file is exactly what was synced");
        }
        boolean anyResize = pending.stream().anyMatch(Pending::resize);
        for (int i = 0; i < recovered.length; i++) {
            boolean possible = (i < synced.length && recovered[i] == synced[i]) || recovered[i] == 0;
            for (Pending mutation : pending) {
                if (!mutation.resize() && i >= mutation.offset() && i < mutation.offset() + mutation.data().length
                        && mutation.data()[(int) (i - mutation.offset())] == recovered[i]) {
                    possible = true;
                }
            }
            assertTrue(possible, "byte " + i + " came from nowhere");
        }
        if (!anyResize) {
            assertTrue(recovered.length >= synced.length, "without truncates a crash never shrinks a synced file");
            for (int i = 0; i < synced.length; i++) {
                boolean overwritten = false;
                for (Pending mutation : pending) {
                    overwritten |= i >= mutation.offset() && i < mutation.offset() + mutation.data().length;
                }
                if (!overwritten) {
                    assertEquals(synced[i], recovered[i], "synced byte " + i + " is intact");
                }
            }
        }
    }
}
