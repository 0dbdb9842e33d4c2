package dev.lockstep.engine.request;

/** A sleep: a timer-wheel registration that completes with {@code null} at its deadline. */
public final class TimerRequest extends Request {
    private final long deadlineNanos;

    public TimerRequest(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * When the sleep ends, in the worker's clock.
     *
     * @return epoch nanoseconds
     */
    long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public Kind kind() {
        return Kind.TIMER;
    }

    /** A sleep holds no buffer or fd: retiring it queues no release. */
    @Override
    public boolean holdsResources() {
        return false;
    }

    @Override
    public String describe() {
        return "sleep until " + deadlineNanos();
    }
}
