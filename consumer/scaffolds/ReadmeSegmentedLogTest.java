import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.Search;
import dev.lockstep.testing.SimulationTest;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The README's steering example: its append, in a log of two-entry segments, and its recovery statements, over the
 * segments the appends made.
 */
class ReadmeSegmentedLogTest {
    static final int ENTRIES_PER_SEGMENT = 2;
    private final List<Blob> segments = new ArrayList<>();
    private final List<Long> entries = new ArrayList<>();
    private Context ctx;
    private Blob current;
    private int inSegment;

    private void roll() {
        current = ctx.open("log", "seg-" + segments.size()).await().blob();
        segments.add(current);
        inSegment = 0;
    }

    // README: void append(long value) {

    private void recover() {
        // README: Search.sometimes(segments.size() > 1, "recovered more than one segment");
    }

    @SimulationTest(seeds = 5, uring = true)
    void appendsRollOverToNewSegments(Context ctx) {
        this.ctx = ctx;
        roll();
        for (long value = 1; value <= 5; value++) {
            append(value);
        }
        recover();
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), entries);
        assertTrue(segments.size() >= 3, "5 entries in segments of 2 made " + segments.size() + " segments");
        for (Blob segment : segments) {
            segment.close();
        }
    }
}
