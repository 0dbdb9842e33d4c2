package dev.lockstep.sync;

import dev.lockstep.Handle;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Waits for a group of tasks: {@link #all} completes with every task's value, in the order of the handles, or
 * fails with the first failure it sees (in handle order within one poll) without waiting for the rest.
 *
 * <p>Closing the join, or its failing, stops only the waiting: the tasks go on. Abort them through their handles
 * (or their common supervisor) if they should not. May be polled from any thread; polls are serialized by the
 * join's monitor, held while the handles are polled (which does not park).
 *
 * @param <T> the tasks' values
 */
public final class Join<T> implements Operation<List<T>> {
    private final List<? extends Handle<? extends T>> handles;
    private final Object[] values;
    private final boolean[] done;
    private boolean finished;

    private Join(List<? extends Handle<? extends T>> handles) {
        this.handles = handles;
        this.values = new Object[handles.size()];
        this.done = new boolean[handles.size()];
    }

    /**
     * Waits for all the handles.
     *
     * @param handles the tasks, none null; an empty list completes at once with an empty list
     * @param <T> their values
     * @return the join
     */
    public static <T> Join<T> all(List<? extends Handle<? extends T>> handles) {
        Objects.requireNonNull(handles, "handles");
        for (int i = 0; i < handles.size(); i++) {
            Objects.requireNonNull(handles.get(i), "handle " + i);
        }
        return new Join<>(List.copyOf(handles));
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized Poll<List<T>> poll(Waker waker) {
        Objects.requireNonNull(waker, "waker");
        if (finished) {
            return Poll.failed(new dev.lockstep.ClosedException("the join was already observed or closed"));
        }
        boolean all = true;
        for (int index = 0; index < handles.size(); index++) {
            if (done[index]) {
                continue;
            }
            Poll<? extends T> poll = handles.get(index).poll(waker);
            if (!poll.isReady()) {
                all = false;
                continue;
            }
            try {
                values[index] = poll.get();
                done[index] = true;
            } catch (RuntimeException failure) {
                finished = true;
                return Poll.failed(failure);
            }
        }
        if (!all) {
            return Poll.pending();
        }
        finished = true;
        List<T> result = new ArrayList<>(values.length);
        for (Object value : values) {
            result.add((T) value);
        }
        Arrays.fill(values, null);
        return Poll.ready(java.util.Collections.unmodifiableList(result));
    }

    @Override
    public List<T> await() {
        return Awaiting.await(this);
    }

    @Override
    public synchronized void close() {
        finished = true;
        Arrays.fill(values, null);
    }
}
