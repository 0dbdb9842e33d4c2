package dev.lockstep.engine.request;

import dev.lockstep.kernel.Ring;
import java.util.function.Supplier;

/**
 * A request that runs short synchronous kernel calls on its worker (a listener's bind) or simply carries a value
 * known at the call. Never occupies a ring slot. Calls that may wait for a device (storage metadata) are not
 * immediate: they are {@code MetadataRequest}s, run off the worker. A {@code RuntimeException} the body throws is
 * the request's failure as it is, so the body maps a kernel's failure to the call's own type.
 */
public final class Immediate extends Request {
    private final String description;
    private final Supplier<Object> body;

    private final java.util.function.Function<Throwable, RuntimeException> internalFailure;
    /** Releases what the body's call uses (an fd reference), run once when the request retires; null for none. */
    private Runnable onRetire;

    /**
     * @param description names the call
     * @param body the synchronous work, run on the worker inside its critical section: no parking, no user code
     */
    public Immediate(String description, Supplier<Object> body) {
        this(description, body, null);
    }

    /**
     * An immediate call that holds something from admission until the request retires — a reference to the fd
     * its body uses, so that the fd stays open (and its number is not reused) while the call waits for its turn.
     *
     * @param onRetire releases what is held (for an fd reference the caller took: its {@code release}); run once,
     *     on the worker, when the request retires, whether it ran, failed or was refused
     * @param description names the call
     * @param body the synchronous work
     * @return the request
     */
    public static Immediate holding(Runnable onRetire, String description, Supplier<Object> body) {
        Immediate request = new Immediate(description, body);
        request.onRetire = java.util.Objects.requireNonNull(onRetire, "onRetire");
        return request;
    }

    /**
     * @param description names the call
     * @param body the synchronous work
     * @param internalFailure wraps anything but a {@code RuntimeException} the body throws (an out-of-memory),
     *     or null for the default of {@link Request#internalFailure}
     */
    public Immediate(String description, Supplier<Object> body,
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
    public void release(Ring ring) {
        Runnable release = onRetire;
        if (release != null) {
            onRetire = null;
            release.run();
        }
    }

    @Override
    public String describe() {
        return description;
    }
}
