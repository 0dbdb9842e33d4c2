import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Blob;
import dev.lockstep.micrometer.LockstepMetrics;
import dev.lockstep.uring.UringRunner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's metrics: a live runner bound to a Micrometer registry counts the bytes the task wrote. */
class ReadmeMetricsTest {
    @Test
    void theRegistryCountsTheBytesWritten(@TempDir Path data) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // README: LockstepMetrics metrics = new LockstepMetrics();
        assertEquals(4096, written);
    }
}
