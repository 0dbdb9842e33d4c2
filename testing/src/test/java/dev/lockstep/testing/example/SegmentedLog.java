package dev.lockstep.testing.example;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.OpenedBlob;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.Search;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The user code of the README's "Steering the search": a log of longs in segment blobs {@code seg-0},
 * {@code seg-1}, ... of at most {@value #ENTRIES_PER_SEGMENT} entries each, every append synced before it
 * returns. Rolling over to a new segment is the rare path a short test never takes, so a fault point takes it
 * early; recovery says, through {@link Search}, which states a sweep should reach.
 */
final class SegmentedLog implements AutoCloseable {
    static final int ENTRIES_PER_SEGMENT = 1_000;
    private static final String PARTITION = "log";

    private final Context ctx;
    private final List<Long> entries;
    private Blob current;
    private int segment;
    private int inSegment;

    private SegmentedLog(Context ctx, List<Long> entries, Blob current, int segment, int inSegment) {
        this.ctx = ctx;
        this.entries = entries;
        this.current = current;
        this.segment = segment;
        this.inSegment = inSegment;
    }

    static SegmentedLog open(Context ctx) {
        return open(ctx, true);
    }

    /**
     * {@code numericOrder = false} is the bug {@code SegmentedLogSearchTest} plants: segments recovered in the order
     * of their names, so {@code seg-10} comes before {@code seg-2}.
     */
    static SegmentedLog open(Context ctx, boolean numericOrder) {
        TreeMap<Object, String> segments = new TreeMap<>();
        List<byte[]> names;
        try {
            names = ctx.scan(PARTITION).await();
        } catch (PartitionMissingException first) {
            names = List.of(); // a fresh disk: the first open creates the partition
        }
        for (byte[] name : names) {
            String text = new String(name, StandardCharsets.UTF_8);
            if (text.startsWith("seg-")) {
                segments.put(numericOrder ? (Object) Integer.parseInt(text.substring(4)) : text, text);
            }
        }
        List<Long> entries = new ArrayList<>();
        Blob last = null;
        int lastEntries = 0;
        try {
            for (String name : segments.values()) {
                if (last != null) {
                    last.close();
                    last = null;
                }
                OpenedBlob opened = ctx.open(PARTITION, name).await();
                last = opened.blob();
                lastEntries = (int) (opened.length() / Long.BYTES);
                ByteBuffer bytes = ByteBuffer.wrap(last.readAt(0, lastEntries * Long.BYTES).await());
                for (int i = 0; i < lastEntries; i++) {
                    entries.add(bytes.getLong());
                }
            }
            Search.sometimes(segments.size() > 1, "recovered more than one segment");
            Search.reached("segments recovered", Math.min(segments.size(), 4));
            if (last == null) {
                last = ctx.open(PARTITION, "seg-0").await().blob();
                ctx.syncPartition(PARTITION).await();
                segments.put(numericOrder ? (Object) 0 : "seg-0", "seg-0");
            }
        } catch (RuntimeException | Error failure) {
            if (last != null) {
                last.close(); // a crash or a fault cut the recovery short: the blob is still ours to close
            }
            throw failure;
        }
        int lastSegment = Integer.parseInt(segments.lastEntry().getValue().substring(4));
        return new SegmentedLog(ctx, entries, last, lastSegment, lastEntries);
    }

    /** Appends {@code value}; returns once it is durable. */
    void append(long value) {
        // Rolling over is the path a short test never reaches: in the simulator, a fault point takes it early.
        if (inSegment == ENTRIES_PER_SEGMENT || Search.faultPoint("log.roll-early")) {
            roll();
        }
        current.writeAt((long) inSegment * Long.BYTES, ByteBuffer.allocate(Long.BYTES).putLong(value).array())
                .await();
        current.sync().await();
        inSegment++;
        entries.add(value);
    }

    /** Starts the next segment; its name is durable once the partition is synced. */
    private void roll() {
        current.close();
        current = null;
        current = ctx.open(PARTITION, "seg-" + (segment + 1)).await().blob();
        ctx.syncPartition(PARTITION).await();
        segment++;
        inSegment = 0;
    }

    List<Long> entries() {
        return List.copyOf(entries);
    }

    @Override
    public void close() {
        if (current != null) {
            current.close();
        }
    }
}
