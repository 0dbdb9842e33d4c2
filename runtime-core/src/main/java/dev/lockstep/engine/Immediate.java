package dev.lockstep.engine;

import java.util.function.Supplier;

/**
 * A request that runs short synchronous kernel calls on its worker (a listener's bind) or simply carries a value
 * known at the call. Never occupies a ring slot. Calls that may wait for a device (storage metadata) are not
 * immediate: they are {@link MetadataRequest}s, run off the worker.
 */
final class Immediate extends Request {
    private final String description;
    private final Supplier<Object> body;

    private final java.util.function.Function<Throwable, RuntimeException> internalFailure;

    Immediate(String description, Supplier<Object> body) {
        this(description, body, null);
    }

    /**
     * @param description names the call
     * @param body the synchronous work
     * @param internalFailure wraps anything but a {@code RuntimeException} the body throws (an out-of-memory),
     *     or null for the default of {@link Request#internalFailure}
     */
    Immediate(String description, Supplier<Object> body,
              java.util.function.Function<Throwable, RuntimeException> internalFailure) {
        this.description = description;
        this.body = body;
        this.internalFailure = internalFailure;
    }

    @Override
    public RuntimeException internalFailure(Throwable cause) {
        return internalFailure == null || cause instanceof dev.lockstep.LockstepException
                ? super.internalFailure(cause) : internalFailure.apply(cause);
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
        } catch (Error failure) {
            // An out-of-memory while computing this one result fails this request, not the worker.
            fail(internalFailure(failure));
        }
    }

    @Override
    public String describe() {
        return description;
    }
}
