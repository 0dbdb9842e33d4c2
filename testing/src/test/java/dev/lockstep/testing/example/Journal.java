package dev.lockstep.testing.example;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.OpenedBlob;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The user code of the README's "Testing your own code": an append-only journal of strings in one blob, each
 * entry {@code [length u32][crc32c u32][utf-8 bytes]}, synced before {@link #append} returns; a torn last entry is
 * cut off when the journal is opened.
 */
final class Journal implements AutoCloseable {
    private final Blob blob;
    private final List<String> entries;
    private final boolean syncEachAppend;
    private long end;

    private Journal(Blob blob, List<String> entries, long end, boolean syncEachAppend) {
        this.blob = blob;
        this.entries = entries;
        this.end = end;
        this.syncEachAppend = syncEachAppend;
    }

    static Journal open(Context ctx, String name) {
        return open(ctx, name, true);
    }

    /** {@code syncEachAppend = false} is the bug the README's failing run shows. */
    static Journal open(Context ctx, String name, boolean syncEachAppend) {
        OpenedBlob opened = ctx.open("journal", name).await();
        try {
            return recover(opened, syncEachAppend);
        } catch (RuntimeException | Error failure) {
            opened.blob().close(); // a crash or a fault cut the recovery short: the blob is still ours to close
            throw failure;
        }
    }

    private static Journal recover(OpenedBlob opened, boolean syncEachAppend) {
        byte[] bytes = opened.blob().readAt(0, (int) opened.length()).await();
        List<String> entries = new ArrayList<>();
        int offset = 0;
        while (bytes.length - offset >= 8) {
            ByteBuffer header = ByteBuffer.wrap(bytes, offset, 8);
            int length = header.getInt();
            int crc = header.getInt();
            if (length < 0 || length > bytes.length - offset - 8 || crc32c(bytes, offset + 8, length) != crc) {
                break;
            }
            entries.add(new String(bytes, offset + 8, length, StandardCharsets.UTF_8));
            offset += 8 + length;
        }
        if (offset < bytes.length) {
            opened.blob().resize(offset).await(); // a torn tail: never acknowledged
            opened.blob().sync().await();
        }
        return new Journal(opened.blob(), entries, offset, syncEachAppend);
    }

    /** Appends {@code entry}; returns once it is durable. */
    void append(String entry) {
        byte[] text = entry.getBytes(StandardCharsets.UTF_8);
        byte[] record = ByteBuffer.allocate(8 + text.length).putInt(text.length)
                .putInt(crc32c(text, 0, text.length)).put(text).array();
        blob.writeAt(end, record).await();
        if (syncEachAppend) {
            blob.sync().await();
        }
        end += record.length;
        entries.add(entry);
    }

    List<String> entries() {
        return List.copyOf(entries);
    }

    private static int crc32c(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    @Override
    public void close() {
        blob.close();
    }
}
