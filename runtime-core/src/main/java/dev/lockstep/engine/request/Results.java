package dev.lockstep.engine.request;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Poll;

/**
 * Results own their resources until observed: a result that holds an fd — an accepted or dialled
 * {@link Connection}, a bound {@link Listener}, an opened blob — and that nobody will observe any more is
 * closed by the runtime. This is the one place that knows which results those are.
 *
 * <p>Called wherever a result is dropped unobserved: its operation was closed, the task that awaited it was
 * aborted, a completion arrived for a request whose cancellation lost the race, a channel's receiver went
 * away, or the worker retired with it unconsumed. Always outside the worker's critical section: closing a
 * connection or a blob releases fds and may run other owners' cleanup.
 */
final class Results {
    private Results() {
    }

    /**
     * Closes what a dropped result holds. Does nothing for failures, pending polls and values that hold
     * nothing (bytes, nothing, lists of names).
     *
     * @param result the dropped result, or null
     */
    static void dispose(Poll<?> result) {
        if (result instanceof Poll.Ready<?> ready && ready.failure() == null) {
            dispose(ready.value());
        }
    }

    /**
     * Closes a dropped value if it holds an fd.
     *
     * @param value the value, or null
     */
    static void dispose(Object value) {
        switch (value) {
            case Connection connection -> connection.close();
            case Listener listener -> listener.close();
            case OpenedBlob opened -> opened.blob().close();
            case Blob blob -> blob.close();
            case null, default -> { }
        }
    }

    /**
     * Whether a poll carries a value that {@link #dispose} would close.
     *
     * @param result the poll, or null
     * @return true for a ready connection, listener or blob
     */
    static boolean holdsResource(Poll<?> result) {
        return result instanceof Poll.Ready<?> ready && ready.failure() == null
                && (ready.value() instanceof Connection || ready.value() instanceof Listener
                        || ready.value() instanceof OpenedBlob || ready.value() instanceof Blob);
    }
}
