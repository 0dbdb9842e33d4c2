package dev.lockstep.sim.sched;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Items handed to a structure confined to one thread (its owner) by any other thread: what the {@link Scheduler}
 * receives from threads outside the simulation. The owner asks {@link #pending()} as often as it likes (one
 * volatile read) and {@link #drain}s when it says so; other threads {@link #offer}.
 *
 * <h2>Threads, and why no item is left behind</h2>
 * An offer adds to a {@link ConcurrentLinkedQueue}, whose add happens-before the poll that returns the item (so
 * the owner sees the item whole), and then sets the volatile flag. A drain clears the flag first and then polls
 * until the queue is empty. So an offer that races with a drain either adds its item before the drain's last poll
 * (the drain takes it) or sets the flag after the drain cleared it (the owner's next {@link #pending()} is true);
 * in no interleaving does an item sit in the queue with the flag clear once its offer has returned. Clearing the
 * flag after the polls instead would lose an item added between the last poll and the clear
 * ({@code ForeignHandoffModelTest} model-checks and stresses the order kept; its model check finds that loss when
 * the order is reversed).
 *
 * <p>Hand-written rather than a JDK queue alone: the flag is what lets the owner check for nothing on every step
 * with a plain read, where {@code isEmpty()} on the queue reads its head node and first item each time.
 *
 * @param <T> what is handed over
 */
final class ForeignHandoff<T> {
    private final ConcurrentLinkedQueue<T> items = new ConcurrentLinkedQueue<>();
    /** Set after every offer's add; cleared by the owner before it drains. */
    private volatile boolean pending;

    /**
     * Hands {@code item} to the owner. Any thread.
     *
     * @param item not null
     */
    void offer(T item) {
        items.add(item);
        pending = true; // after the add: an owner that sees the flag finds the item
    }

    /**
     * Whether an offer may be waiting. Owner thread.
     *
     * @return true if the owner should {@link #drain}
     */
    boolean pending() {
        return pending;
    }

    /**
     * Gives every item offered so far to {@code sink}, in the order offered. Owner thread.
     *
     * @param sink what takes them
     */
    void drain(Consumer<? super T> sink) {
        pending = false; // before the polls: an offer racing with them sets it again
        T item;
        while ((item = items.poll()) != null) {
            sink.accept(item);
        }
    }

    /**
     * Whether an item offered and not yet drained matches. Owner thread (a snapshot: an offer may land meanwhile).
     *
     * @param test what to look for
     * @return true if one matches
     */
    boolean anyWaiting(Predicate<? super T> test) {
        for (T item : items) {
            if (test.test(item)) {
                return true;
            }
        }
        return false;
    }
}
