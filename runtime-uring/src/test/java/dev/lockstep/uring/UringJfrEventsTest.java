package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.kernel.Submission;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Enabled;
import jdk.jfr.Name;
import jdk.jfr.Threshold;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR events of runtime-uring and the engine, recorded from live runs and read back from the file. */
class UringJfrEventsTest {
    private static final int RING_ENTRIES = 64;

    @Test
    void rareEventsAreOnByDefaultAndHotOnesOff() {
        assertEquals("true", defaultSetting("lockstep.Sync", "enabled"));
        assertEquals("true", defaultSetting("lockstep.RingSetup", "enabled"));
        assertEquals("true", defaultSetting("lockstep.RingTeardown", "enabled"));
        assertEquals("true", defaultSetting("lockstep.CompletionOverflow", "enabled"));
        assertEquals("true", defaultSetting("lockstep.WorkerStall", "enabled"));
        assertEquals("20 ms", defaultSetting("lockstep.WorkerStall", "threshold"));
        assertEquals("false", defaultSetting("lockstep.ForeignResume", "enabled"));
    }

    @Test
    void aRunRecordsItsRingsAndSyncs(@TempDir Path data) throws Exception {
        List<RecordedEvent> events;
        String chosenFlags;
        String chosenFallbacks;
        // The run's rings offload ftruncate as on a kernel before 6.9, so their events have a fallback to name.
        UringSetup.assumeFtruncateOpcode(false);
        try (Recording recording = new Recording()) {
            recording.enable("lockstep.Sync");
            recording.enable("lockstep.RingSetup");
            recording.enable("lockstep.RingTeardown");
            recording.start();
            UringRunner.builder().workers(2).ringEntries(RING_ENTRIES).storage(data).build().start(ctx -> {
                try (Blob blob = ctx.open("jfr", "journal").await().blob()) {
                    blob.writeAt(0, new byte[1000]).await();
                    blob.writeAt(1000, new byte[234]).await();
                    blob.sync().await();
                }
                return null;
            });
            recording.stop();
            events = read(recording, data.resolve("events.jfr"));
            // A ring opened the same way as the run's: its flags and fallbacks are what the run's rings chose.
            try (UringRing probe = new UringKernel().openRing(RING_ENTRIES)) {
                chosenFlags = probe.setupFlags();
                chosenFallbacks = RingReport.describeFallbacks(probe);
            }
        } finally {
            UringSetup.assumeFtruncateOpcode(null);
        }
        assertTrue(chosenFallbacks.contains("ftruncate offloaded (no IORING_OP_FTRUNCATE, Linux 6.9+)"),
                chosenFallbacks);
        List<RecordedEvent> syncs = named(events, "lockstep.Sync");
        assertEquals(1, syncs.size(), "one flush: " + syncs);
        RecordedEvent sync = syncs.getFirst();
        assertEquals("jfr/journal", sync.getString("blob"));
        assertEquals(1234, sync.getLong("bytes"), "the bytes written since the previous flush");
        assertEquals(0, sync.getInt("worker"));
        assertNull(sync.getString("error"));
        assertTrue(sync.getDuration().toNanos() > 0, "a flush takes time");

        List<RecordedEvent> setups = named(events, "lockstep.RingSetup");
        assertEquals(2, setups.size(), "one ring per worker");
        for (RecordedEvent setup : setups) {
            assertEquals(RING_ENTRIES, setup.getInt("entries"));
            assertEquals(System.getProperty("os.version"), setup.getString("kernel"));
            assertEquals(chosenFlags, setup.getString("flags"));
            assertTrue(setup.getString("features").contains("NODROP"), setup.getString("features"));
            assertEquals(chosenFallbacks, setup.getString("fallbacks"));
        }
        // Each worker thread commits its ring's teardown as it exits. On JDK 25 the first event a worker thread
        // commits after one of its fibers committed one is not in the recording (WorkerStallEvent's doc), and the
        // sync's event is committed by a fiber when the fiber turned the ring inline: so one or two.
        List<RecordedEvent> teardowns = named(events, "lockstep.RingTeardown");
        assertTrue(teardowns.size() == 1 || teardowns.size() == 2, "one teardown per worker at most: " + teardowns);
        for (RecordedEvent teardown : teardowns) {
            assertEquals(0, teardown.getLong("completionOverflows"));
        }
    }

    @Test
    void enabledForeignResumesAreRecordedOnTheWakingThread() throws Exception {
        List<RecordedEvent> events;
        try (Recording recording = new Recording()) {
            recording.enable("lockstep.ForeignResume");
            recording.start();
            UringRunner.builder().workers(2).build().start(ctx -> ctx.spawnOn(1, child -> 1).await());
            recording.stop();
            events = read(recording, java.nio.file.Files.createTempFile("lockstep", ".jfr"));
        }
        List<RecordedEvent> resumes = named(events, "lockstep.ForeignResume");
        assertTrue(resumes.stream().anyMatch(event -> event.getInt("worker") == 0 && event.getInt("fromWorker") == -1
                        && event.getThread().getJavaName().equals(Thread.currentThread().getName())),
                "the root task was started on worker 0 by this thread: " + resumes);
        assertTrue(resumes.stream().anyMatch(event -> event.getInt("worker") == 1 && event.getInt("fromWorker") == 0),
                "the root on worker 0 started a task on worker 1: " + resumes);
    }

    @Test
    void aFiberThatHoldsItsWorkerPastTheThresholdIsAStall() throws Exception {
        List<RecordedEvent> events;
        try (Recording recording = new Recording()) {
            recording.enable("lockstep.WorkerStall").withThreshold(Duration.ofMillis(10));
            recording.start();
            UringRunner.builder().workers(2).build().start(ctx -> ctx.spawnOn(1, child -> {
                // Holds worker 1 without yielding for at least 30 ms: past the threshold whatever the load.
                long start = System.nanoTime();
                while (System.nanoTime() - start < 30_000_000L) {
                    Thread.onSpinWait();
                }
                return 1;
            }).await());
            recording.stop();
            events = read(recording, java.nio.file.Files.createTempFile("lockstep", ".jfr"));
        }
        assertTrue(named(events, "lockstep.WorkerStall").stream()
                        .anyMatch(event -> event.getInt("worker") == 1
                                && event.getDuration().compareTo(Duration.ofMillis(30)) >= 0),
                "worker 1 ran a fiber for 30 ms without its ring: " + named(events, "lockstep.WorkerStall"));
    }

    @Test
    void aCompletionQueueOverflowIsCountedAndRecorded() throws Exception {
        List<RecordedEvent> events;
        long overflows;
        try (Recording recording = new Recording()) {
            recording.enable("lockstep.CompletionOverflow");
            recording.start();
            try (UringRing single = new UringKernel().openRing(1)) {
                Submission nop = new Submission();
                for (long userData = 1; userData <= 10; userData++) {
                    nop.userData = userData;
                    assertTrue(single.stage(nop));
                    single.submitWithoutReaping();
                }
                int[] delivered = new int[1];
                single.enter(false, 0, (userData, result, flags) -> delivered[0]++);
                assertEquals(10, delivered[0]);
                overflows = single.completionOverflows();
            }
            recording.stop();
            events = read(recording, java.nio.file.Files.createTempFile("lockstep", ".jfr"));
        }
        assertEquals(1, overflows, "a completion queue of 2 overflowed once, and was drained");
        List<RecordedEvent> recorded = named(events, "lockstep.CompletionOverflow");
        assertEquals(1, recorded.size());
        assertEquals(1, recorded.getFirst().getInt("entries"));
    }

    private static List<RecordedEvent> read(Recording recording, Path file) throws java.io.IOException {
        recording.dump(file);
        try {
            return RecordingFile.readAllEvents(file);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /**
     * The default of one setting of an event, as JFR takes it from the event class's annotations: {@code enabled}
     * ({@link Enabled}, true when absent) or {@code threshold} ({@link Threshold}, 0 ns when absent).
     */
    private static String defaultSetting(String event, String setting) {
        Class<?> type = EVENT_CLASSES.get(event);
        assertEquals(event, type.getAnnotation(Name.class).value(), "the class's event name");
        return switch (setting) {
            case "enabled" -> {
                Enabled enabled = type.getAnnotation(Enabled.class);
                yield String.valueOf(enabled == null || enabled.value());
            }
            case "threshold" -> {
                Threshold threshold = type.getAnnotation(Threshold.class);
                yield threshold == null ? "0 ns" : threshold.value();
            }
            default -> throw new IllegalArgumentException(setting);
        };
    }

    private static final java.util.Map<String, Class<?>> EVENT_CLASSES = eventClasses();

    private static java.util.Map<String, Class<?>> eventClasses() {
        try {
            return java.util.Map.of(
                    "lockstep.Sync", Class.forName("dev.lockstep.engine.io.SyncEvent"),
                    "lockstep.WorkerStall", Class.forName("dev.lockstep.engine.WorkerStallEvent"),
                    "lockstep.ForeignResume", Class.forName("dev.lockstep.engine.ForeignResumeEvent"),
                    "lockstep.RingSetup", RingReport.RingSetupEvent.class,
                    "lockstep.RingTeardown", RingReport.RingTeardownEvent.class,
                    "lockstep.CompletionOverflow", RingReport.CompletionOverflowEvent.class);
        } catch (ClassNotFoundException missing) {
            throw new AssertionError(missing);
        }
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(event -> event.getEventType().getName().equals(name)).toList();
    }
}
