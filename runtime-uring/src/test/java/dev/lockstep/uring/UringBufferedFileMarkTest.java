package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Blob;
import dev.lockstep.OpenOptions;
import dev.lockstep.WriteOptions;
import dev.lockstep.engine.ForwardingKernel;
import dev.lockstep.engine.ForwardingRing;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine marks the writes of a blob opened through the page cache {@link Submission#BUFFERED_FILE}, which is
 * what lets runtime-uring make them inline without asking the kernel how the file was opened, and leaves the
 * writes of a blob opened {@code DIRECT} unmarked, so they go through the ring.
 */
class UringBufferedFileMarkTest {
    @TempDir
    Path directory;

    @Test
    void writesOfAPageCacheBlobAreMarkedAndThoseOfADirectBlobAreNot() {
        List<String> writes = new CopyOnWriteArrayList<>();
        ForwardingKernel kernel = new ForwardingKernel(new UringKernel()) {
            @Override
            public Ring openRing(int entries) {
                return new ForwardingRing(kernel.openRing(entries)) {
                    @Override
                    public boolean stage(Submission submission) {
                        if (submission.opcode == Opcode.WRITE) {
                            boolean marked = (submission.flags & Submission.BUFFERED_FILE) != 0;
                            writes.add(submission.length + (marked ? " marked" : " unmarked"));
                        }
                        return super.stage(submission);
                    }
                };
            }
        };
        new ThreadedRunner(kernel, 1, 64, directory.resolve("store").toString(), "marks").start(ctx -> {
            try (Blob buffered = ctx.open("p", "buffered").await().blob()) {
                buffered.writeAt(0, "plain".getBytes(StandardCharsets.UTF_8)).await();
                buffered.writeAt(5, new byte[][] {"durable".getBytes(StandardCharsets.UTF_8)}, WriteOptions.SYNC)
                        .await();
            }
            try (Blob direct = ctx.open("p", "direct".getBytes(StandardCharsets.UTF_8), OpenOptions.DIRECT).await()
                    .blob()) {
                direct.writeAt(0, new byte[direct.directAlignment()]).await();
            }
            return null;
        });
        assertEquals(3, writes.size(), () -> "three writes, was " + writes);
        assertEquals("5 marked", writes.get(0));
        assertEquals("7 marked", writes.get(1), "a SYNC write's file is buffered too; its flush follows");
        assertEquals(true, writes.get(2).endsWith(" unmarked"), () -> "the direct blob's write, was " + writes);
    }
}
