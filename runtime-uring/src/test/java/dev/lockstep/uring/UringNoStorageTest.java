package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.StorageUnavailableException;
import org.junit.jupiter.api.Test;

/** On runtime-uring, a runner built without storage(directory) refuses storage with the documented exception. */
class UringNoStorageTest {

    @Test
    void openWithoutAStorageDirectoryIsStorageUnavailable() {
        String message = UringRunner.builder().workers(1).build().start(ctx ->
                assertThrows(StorageUnavailableException.class, () -> ctx.open("p", "b")).getMessage());
        assertTrue(message.contains("UringRunner.builder().storage(directory)"), message);
    }
}
