package dev.lockstep.engine.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Waker;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ThreadedRunner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Messages a user reads name what the user knows (the operation, the blob by its name), not engine internals. */
class UserFacingMessagesTest {

    @Test
    void blobsAreNamedByTheirTextNameAndOnlyBinaryNamesInHex() {
        assertEquals("p/log", EngineStorage.describe("p", "log".getBytes(StandardCharsets.UTF_8)));
        assertEquals("p/café-1", EngineStorage.describe("p", "café-1".getBytes(StandardCharsets.UTF_8)));
        assertEquals("p/0x00ff01", EngineStorage.describe("p", new byte[] {0, (byte) 0xFF, 1}));
        assertEquals("p/0x0a", EngineStorage.describe("p", new byte[] {'\n'}), "a control character is not text");
    }

    @Test
    void anOperationPolledAfterItsResultWasTakenSaysSoWithoutItsSlot() {
        String message = new ThreadedRunner(new ScriptedKernel(), 1, 4, null, "messages").start(ctx -> {
            Operation<Void> sleep = ctx.sleeper(Duration.ZERO);
            sleep.await();
            return assertThrows(ClosedException.class, () -> sleep.poll(Waker.noop()).get()).getMessage();
        });
        assertTrue(message.contains("result was already taken"), message);
        assertFalse(message.contains("WaiterId") || message.contains("index="), message);
    }
}
