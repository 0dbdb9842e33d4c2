package dev.lockstep.engine.request;

import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.task.Fibers;

/**
 * An operation over a {@link ResultChannel}: the handle of a detached sync. Closing it only stops observing; the
 * work behind it goes on. Like every operation it hands its result to one poll ({@link ResultChannel#take}): a later
 * poll, or any poll after {@link #close()}, reads {@link dev.lockstep.ClosedException}.
 *
 * @param <T> the value
 */
public final class ChannelOperation<T> implements Operation<T> {
    private final ResultChannel<Object> channel;

    public ChannelOperation(ResultChannel<Object> channel) {
        this.channel = channel;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Poll<T> poll(Waker waker) {
        return (Poll<T>) channel.take(waker);
    }

    @Override
    public T await() {
        return Fibers.await(this);
    }

    @Override
    public void close() {
        channel.closeReceiver(Thread.currentThread());
    }
}
