package dev.lockstep.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The measured window shared by a program's threads: the warm-up starts at the first {@link #running} call;
 * the first thread to ask after the warm-up reads the operations counted so far, the allocation counter, the
 * application CPU time and the clock, and the first one after the end reads them again, while every measuring
 * thread is still alive, before {@code running} turns false.
 *
 * <p>The per-operation calls have no branch that turns for the first time when the measurement begins, which
 * would throw away (deoptimize) the code the JIT compiled during the warm-up just as the window opens: each
 * operation is counted ({@link #count}, the count at the window's start subtracted), and {@link #running}
 * compares the clock with the next mark, which falls every {@link #MARK_NANOS} during the warm-up as well,
 * so that the JIT sees that branch taken. What a mark does is in {@link #mark}, called too rarely to be
 * inlined into the measuring loop.
 *
 * <p>Threads: no thread waits for another here. Measuring threads are fibers as well as platform threads, and a
 * monitor or a plain lock taken at each mark would pin a fiber's carrier while another fiber of that carrier
 * held it; instead the one thread whose compare-and-set moves {@link #nextMark} from the mark it read to
 * {@link #MARKING} takes that mark, and every other thread that read the same mark fails its compare-and-set and
 * goes on measuring (a thread that reads {@code MARKING} meanwhile finds no mark due). The winner's readings and
 * {@link #measureFrom} are plain fields, published by its volatile write of the next mark into {@code nextMark},
 * which the next winner's compare-and-set reads: the marks are taken one after another, each seeing the ones
 * before. {@link #ended} is written after the end's readings (volatile), so a thread that saw it true, and the
 * program's thread that joined the measuring threads before {@link #report}, see them.
 */
final class Window {
    /** How often the warm-up takes a mark. */
    static final long MARK_NANOS = 50_000_000;
    /** {@link #nextMark} while a thread takes a mark, and once the window is over: no clock reaches it. */
    private static final long MARKING = Long.MAX_VALUE;
    private final long warmupNanos;
    private final long measureNanos;
    private final LongAdder ops = new LongAdder();
    /**
     * When the next mark falls; Long.MIN_VALUE before the first call, so that the first call takes one;
     * {@link #MARKING} while one is taken and after the last.
     */
    private final AtomicLong nextMark = new AtomicLong(Long.MIN_VALUE);
    private volatile boolean ended;
    private long measureFrom;
    private boolean started;
    private long opsAtStart;
    private long allocationAtStart;
    private long cpuAtStart;
    private long nanosAtStart;
    private long opsAtEnd;
    private long allocationAtEnd;
    private long cpuAtEnd;
    private long nanosAtEnd;

    Window(long warmupNanos, long measureNanos) {
        this.warmupNanos = warmupNanos;
        this.measureNanos = measureNanos;
    }

    /** @return false once the window is over */
    boolean running() {
        long now = System.nanoTime();
        long due = nextMark.get();
        if (now >= due) {
            mark(now, due);
        }
        return !ended;
    }

    /**
     * The warm-up starts (the first call), goes on, ends (the start's readings) or the window ends (the end's
     * readings, then {@link #ended}); by the one thread that moves {@link #nextMark} off {@code due}.
     */
    private void mark(long now, long due) {
        if (!nextMark.compareAndSet(due, MARKING)) {
            return; // another thread took this mark
        }
        if (due == Long.MIN_VALUE) {
            measureFrom = now + warmupNanos;
        }
        if (now < measureFrom) {
            nextMark.set(Math.min(now + MARK_NANOS, measureFrom));
        } else if (!started) {
            opsAtStart = ops.sum();
            allocationAtStart = allocatedBytes();
            cpuAtStart = applicationCpuNanos();
            nanosAtStart = System.nanoTime();
            started = true;
            nextMark.set(nanosAtStart + measureNanos);
        } else {
            opsAtEnd = ops.sum();
            cpuAtEnd = applicationCpuNanos();
            allocationAtEnd = allocatedBytes();
            nanosAtEnd = System.nanoTime();
            ended = true; // nextMark stays MARKING: no mark after the last
        }
    }

    /** One operation done. */
    void count() {
        ops.increment();
    }

    /**
     * Counts {@code done} operations at once: a loop that makes many per turn counts them as the C NOP program
     * does, without an atomic add per operation.
     */
    void count(int done) {
        ops.add(done);
    }

    /** Prints the window's figures; called after the measuring threads were joined. */
    void report() {
        System.out.printf(Locale.ROOT, "RESULT ops=%d seconds=%.6f alloc=%d cpu=%d%n", opsAtEnd - opsAtStart,
                (nanosAtEnd - nanosAtStart) / 1e9, allocationAtEnd - allocationAtStart, cpuAtEnd - cpuAtStart);
    }

    /**
     * CPU time of the JVM's live Java threads, in nanoseconds: the workers, the carriers of virtual threads and
     * the platform threads of a program, but not the JIT compilers or the garbage collector, which are no Java
     * threads and whose work after a warm-up is noise. Read while the measuring threads are still alive.
     */
    static long applicationCpuNanos() {
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (long id : threads.getAllThreadIds()) {
            long cpu = threads.getThreadCpuTime(id);
            if (cpu > 0) {
                total += cpu;
            }
        }
        return total;
    }

    static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }
}
