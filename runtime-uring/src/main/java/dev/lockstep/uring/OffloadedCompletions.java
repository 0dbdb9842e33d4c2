package dev.lockstep.uring;

import dev.lockstep.kernel.CompletionSink;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Completions of a ring's {@link dev.lockstep.kernel.Opcode#BLOCKING_CALL}s and other offloaded calls, posted by
 * {@link Offload} threads ({@link #post}) and delivered on the ring's owner by {@link UringRing#enter} beside the
 * CQEs ({@link #deliver}).
 *
 * <p>Threads: {@link #post} on any thread, {@link #deliver} on the owner only. The queue's offer publishes what the
 * call wrote before it finished; the owner's poll reads it. Waking the ring after the post is the caller's part
 * ({@link UringRing#offloaded}).
 */
final class OffloadedCompletions {
    private final ConcurrentLinkedQueue<long[]> completions = new ConcurrentLinkedQueue<>();

    /** Queues one completion: any thread. */
    void post(long userData, int result) {
        completions.offer(new long[] {userData, result});
    }

    /**
     * Delivers every queued completion to {@code sink}, with no flags. Owner only.
     *
     * @return how many were delivered
     */
    int deliver(CompletionSink sink) {
        int delivered = 0;
        long[] completion;
        while ((completion = completions.poll()) != null) {
            delivered++;
            sink.complete(completion[0], (int) completion[1], 0);
        }
        return delivered;
    }
}
