import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.testing.SimulationTest;
import java.nio.charset.StandardCharsets;

/** The README's crash-safe replace, publishing two versions on both runtimes and reading the last one back. */
class ReadmeManifestTest {
    // README: static void replace(Context ctx, byte[] contents) {

    @SimulationTest(seeds = 5, uring = true)
    void theLastVersionReplacedIsTheOneRead(Context ctx) {
        replace(ctx, "version 1".getBytes(StandardCharsets.UTF_8));
        replace(ctx, "version 2".getBytes(StandardCharsets.UTF_8));
        try (Blob manifest = ctx.open("db", "MANIFEST").await().blob()) {
            assertEquals("version 2", new String(manifest.readAt(0, 9).await(), StandardCharsets.UTF_8));
        }
    }
}
