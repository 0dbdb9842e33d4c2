package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.StorageUnavailableException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A runner built without a storage directory refuses storage calls with the documented exception, at the call. */
class NoStorageTest {

    @Test
    void everyStorageCallIsRefusedWithStorageUnavailable() {
        List<String> messages = new ThreadedRunner(new ScriptedKernel(), 1, 4, null, "no-storage").start(ctx -> List.of(
                assertThrows(StorageUnavailableException.class, () -> ctx.open("p", "b")).getMessage(),
                assertThrows(StorageUnavailableException.class, () -> ctx.remove("p", null)).getMessage(),
                assertThrows(StorageUnavailableException.class, () -> ctx.scan("p")).getMessage()));
        for (String message : messages) {
            assertTrue(message.contains("built without a storage directory"), message);
        }
    }
}
