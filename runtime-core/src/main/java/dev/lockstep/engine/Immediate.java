package dev.lockstep.engine;

import java.util.function.Supplier;

/**
 * A request that runs synchronous kernel calls on its worker (metadata: open, remove, scan, bind, resize) or
 * simply carries a value known at the call. Never occupies a ring slot.
 */
final class Immediate extends Request {
    private final String description;
    private final Supplier<Object> body;

    Immediate(String description, Supplier<Object> body) {
        this.description = description;
        this.body = body;
    }

    @Override
    public Kind kind() {
        return Kind.IMMEDIATE;
    }

    @Override
    public void runImmediate() {
        try {
            succeed(body.get());
        } catch (RuntimeException failure) {
            fail(failure);
        }
    }

    @Override
    public String describe() {
        return description;
    }
}
