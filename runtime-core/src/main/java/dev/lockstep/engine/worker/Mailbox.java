package dev.lockstep.engine.worker;

import dev.lockstep.engine.request.ResultChannel;
import dev.lockstep.engine.request.WaiterId;
import dev.lockstep.sync.FiberSafeLock;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A worker's inbox for messages from other workers and threads: {@link Forward} (a foreign poll moves
 * observation to a channel) and {@link Cancel} (a foreign close). Multi-producer, single consumer (the owner).
 *
 * <p>Closing is ordered against sends by a {@link FiberSafeLock} (fibers send, and so do worker threads in
 * their service turns; a fiber must never queue on a lock its carrier may take): a message accepted before {@link #close()} is drained by
 * the owner's closure; a send after it is refused, and the sender resolves its channel with {@code Closed}
 * itself. Every accepted message nudges the owner awake.
 */
public final class Mailbox {
    /** A message to the owning worker. */
    public sealed interface Message permits Forward, Cancel { }

    /**
     * Deliver the result of request {@code id} on {@code channel}.
     *
     * @param id the request
     * @param channel where the result goes
     */
    public record Forward(WaiterId id, ResultChannel<Object> channel) implements Message { }

    /**
     * Close request {@code id}.
     *
     * @param id the request
     */
    public record Cancel(WaiterId id) implements Message { }

    private final ConcurrentLinkedQueue<Message> queue = new ConcurrentLinkedQueue<>();
    private final Runnable wakeOwner;
    /** Guards {@link #open} and orders it against the queue's adds. */
    private final FiberSafeLock lock = new FiberSafeLock();
    private boolean open = true;

    public Mailbox(Runnable wakeOwner) {
        this.wakeOwner = wakeOwner;
    }

    /**
     * Sends a message.
     *
     * @param message the message
     * @return false if the mailbox is closed (the worker retired)
     */
    public boolean send(Message message) {
        lock.lock();
        try {
            if (!open) {
                return false;
            }
            queue.add(message);
        } finally {
            lock.unlock();
        }
        wakeOwner.run();
        return true;
    }

    /**
     * Whether the owner still accepts messages.
     *
     * @return true while open
     */
    public boolean isOpen() {
        lock.lock();
        try {
            return open;
        } finally {
            lock.unlock();
        }
    }

    public Message poll() {
        return queue.poll();
    }

    public boolean isEmpty() {
        return queue.isEmpty();
    }

    public void close() {
        lock.lock();
        try {
            open = false;
        } finally {
            lock.unlock();
        }
    }
}
