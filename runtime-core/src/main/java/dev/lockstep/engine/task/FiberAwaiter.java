package dev.lockstep.engine.task;

import dev.lockstep.Operation;
import dev.lockstep.spi.Awaiter;

/**
 * The engine's {@link Awaiter}, registered through {@code META-INF/services} and the module descriptor's
 * {@code provides}: operations that are not the engine's own (the primitives of {@code dev.lockstep.sync}) are
 * awaited exactly as the engine's are, by {@link Fibers#await}: aborts and {@code Clock.timeout} scopes apply, and
 * in the simulator the fiber parks on the seeded scheduler.
 */
public final class FiberAwaiter implements Awaiter {
    /** Called by {@link java.util.ServiceLoader}. */
    public FiberAwaiter() {
    }

    @Override
    public <T> T await(Operation<T> operation) {
        return Fibers.await(operation);
    }
}
