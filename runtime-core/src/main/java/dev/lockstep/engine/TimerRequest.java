package dev.lockstep.engine;

/** A sleep: a timer-wheel registration that completes with {@code null} at its deadline. */
final class TimerRequest extends Request {
    TimerRequest(long deadlineNanos) {
        withDeadline(deadlineNanos);
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
