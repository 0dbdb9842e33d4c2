package dev.lockstep.uring;

import dev.lockstep.kernel.BlockingCall;
import dev.lockstep.kernel.Errno;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that run {@link dev.lockstep.kernel.Opcode#BLOCKING_CALL}s for every ring of the process: the
 * system calls io_uring has no opcode for, kept off the worker threads.
 *
 * <h2>Shape</h2>
 * Up to {@link #MAX_THREADS} daemon platform threads, started on demand (when a call is submitted and no
 * thread is idle) and then kept, parked, for the life of the process — like the JDK's common pool, they are
 * shared by every runner. A call that finds every thread busy waits in a FIFO queue; the engine submits at
 * most one call per storage partition at a time, so up to {@code MAX_THREADS} partitions make progress at once.
 *
 * <h2>Threads, and why nothing on the worker parks</h2>
 * {@link #submit} runs on a worker thread inside its critical section: it does a lock-free
 * {@link ConcurrentLinkedQueue#offer}, a {@link Semaphore#release()} (a CAS plus at most one
 * {@code LockSupport.unpark}; it never waits) and, at most {@code MAX_THREADS} times in the life of the
 * process, a {@code Thread.start}. An offload thread takes a permit ({@code acquire}, where it parks while
 * idle), then a call from the queue; every offer is followed by one release, so a permit always has a call
 * waiting behind it and no submitted call is left unserved while a thread is parked. Whether a new thread is
 * started is a heuristic on {@code idle}: a wrong guess only costs a thread or a short wait behind another
 * call, never a lost call, because every live thread loops until the queue is empty.
 *
 * <h2>Completions</h2>
 * A finished call is handed to its ring ({@link UringRing#offloaded}), which queues the completion and wakes
 * itself; the queue's offer publishes everything the call wrote to the ring's thread.
 */
final class Offload {
    /** The most calls running at once in this process. */
    static final int MAX_THREADS = Math.max(4, Runtime.getRuntime().availableProcessors());

    private static final Offload INSTANCE = new Offload();
    private static final System.Logger LOG = System.getLogger(Offload.class.getName());

    private record Task(UringRing ring, long userData, BlockingCall call) {
    }

    private final ConcurrentLinkedQueue<Task> tasks = new ConcurrentLinkedQueue<>();
    private final Semaphore queued = new Semaphore(0);
    private final AtomicInteger threads = new AtomicInteger();
    private final AtomicInteger idle = new AtomicInteger();

    private Offload() {
    }

    static Offload instance() {
        return INSTANCE;
    }

    /**
     * Runs {@code call} on an offload thread, then delivers its result to {@code ring} under {@code userData}.
     * Never blocks.
     */
    void submit(UringRing ring, long userData, BlockingCall call) {
        tasks.offer(new Task(ring, userData, call));
        queued.release();
        if (idle.get() == 0) {
            startThreadIfBelowMax();
        }
    }

    private void startThreadIfBelowMax() {
        while (true) {
            int count = threads.get();
            if (count >= MAX_THREADS) {
                return;
            }
            if (threads.compareAndSet(count, count + 1)) {
                Thread thread = new Thread(this::serve, "lockstep-offload-" + count);
                thread.setDaemon(true);
                thread.start();
                return;
            }
        }
    }

    private void serve() {
        while (true) {
            idle.incrementAndGet();
            queued.acquireUninterruptibly();
            idle.decrementAndGet();
            Task task = tasks.poll();
            if (task == null) {
                continue; // cannot happen: one permit per offer, offered before released
            }
            int result;
            try {
                result = task.call().run();
            } catch (RuntimeException | Error thrown) {
                // The contract says a call never throws; one that does fails its request, not this thread.
                LOG.log(System.Logger.Level.ERROR, "a blocking call threw", thrown);
                result = -Errno.EIO;
            }
            task.ring().offloaded(task.userData(), result);
        }
    }
}
