import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.IoBuffer;
import dev.lockstep.OpenOptions;
import dev.lockstep.testing.SimulationTest;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** The README's direct I/O, on both runtimes: what it wrote through the buffer is in the blob. */
class ReadmeDirectIoTest {
    @SimulationTest(seeds = 3, uring = true)
    void aDirectWriteAndReadThroughAPooledBuffer(Context ctx) {
        // README: try (IoBuffer buffer = ctx.buffers().allocate(4096);
        try (Blob blob = ctx.open("p", "data").await().blob()) {
            byte[] expected = new byte[4096];
            Arrays.fill(expected, (byte) 'x');
            assertArrayEquals(expected, blob.readAt(0, 4096).await());
        }
    }
}
