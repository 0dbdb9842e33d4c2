package dev.lockstep.engine;

import dev.lockstep.engine.request.WaiterId;
import dev.lockstep.engine.worker.InlineTurns;
import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * A kernel whose test decides when each submission completes, with what result, in what order.
 *
 * <p>Submissions the worker stages are recorded as {@link Pending} entries; nothing completes until the test
 * calls {@link #complete}, unless an {@link #autoComplete automatic rule} answers them. Cancellations behave
 * like a real kernel by default: an {@code ASYNC_CANCEL} of a pending request completes it with
 * {@code -ECANCELED} and itself with 0 ({@code -ENOENT} if the target already completed). Time is manual:
 * {@link #advance} moves the clock and wakes the ring. Files live in memory so storage works.
 */
public final class ScriptedKernel implements Kernel {
    /** A submission the kernel has accepted and not completed. */
    public record Pending(Opcode opcode, int fd, long userData, int length, long offset, int rwFlags, long target,
                   MemorySegment buffer, ScriptedRing ring, dev.lockstep.kernel.BlockingCall call) {
        public Pending(Opcode opcode, int fd, long userData, int length, long offset, int rwFlags, long target,
                MemorySegment buffer, ScriptedRing ring) {
            this(opcode, fd, userData, length, offset, rwFlags, target, buffer, ring, null);
        }

        public WaiterId id() {
            return WaiterId.fromUserData(userData);
        }
    }

    public final AtomicLong nowNanos = new AtomicLong(1_700_000_000_000_000_000L);
    /**
     * Guards pending, rings, each ring's ready list and the files; package-private so a test can hold it. Not a
     * monitor: fibers take it (a test completing a submission) and so do their carriers (a ring enter), and a
     * fiber queued on a monitor its carrier then contends wedges both (see {@link FiberSafeLock}).
     */
    final FiberSafeLock lock = new FiberSafeLock();
    /** Signalled under {@link #lock} when pending or a ready list changes; waited on by platform threads only. */
    private final java.util.concurrent.locks.Condition changed = lock.newCondition();
    public final MemoryFiles files = new MemoryFiles(lock);
    private final List<Pending> pending = new ArrayList<>();
    private final List<ScriptedRing> rings = new ArrayList<>();
    private volatile ToIntFunction<Pending> autoComplete;
    private int submitted;

    /**
     * Answers every future submission of a matching kind at once (result from the function), e.g. file I/O.
     *
     * @param rule maps a submission to its result, or to {@link Integer#MIN_VALUE} to leave it pending
     */
    public void autoComplete(ToIntFunction<Pending> rule) {
        this.autoComplete = rule;
    }

    /** The rule {@link #autoComplete} set last, or null. */
    public ToIntFunction<Pending> autoCompleteRule() {
        return autoComplete;
    }

    /** Completes file I/O against the in-memory files automatically; leaves the rest pending. */
    public void autoCompleteFiles() {
        autoComplete(files::execute);
    }

    @Override
    public Ring openRing(int entries) {
        ScriptedRing ring = new ScriptedRing(entries);
        lock.lock();
        try {
            rings.add(ring);
        } finally {
            lock.unlock();
        }
        return ring;
    }

    @Override
    public int maxEntries() {
        return 4096;
    }

    @Override
    public SystemCalls system() {
        return files;
    }

    /** Submissions in flight, in submission order. */
    public List<Pending> pending() {
        lock.lock();
        try {
            return new ArrayList<>(pending);
        } finally {
            lock.unlock();
        }
    }

    public int submitted() {
        lock.lock();
        try {
            return submitted;
        } finally {
            lock.unlock();
        }
    }

    /** The rings opened so far. */
    int ringsOpened() {
        lock.lock();
        try {
            return rings.size();
        } finally {
            lock.unlock();
        }
    }

    /** The rings opened and not closed. */
    int ringsStillOpen() {
        return sumOverRings(ring -> ring.isClosed() ? 0 : 1);
    }

    /** The {@code enter} calls made so far on every ring of this kernel. */
    public int enters() {
        return sumOverRings(ring -> ring.enters.get());
    }

    /** The {@code wake} calls made so far on every ring of this kernel. */
    int wakes() {
        return sumOverRings(ring -> ring.wakes.get());
    }

    /** The {@code enter} calls made so far by fibers (inline turns) on every ring of this kernel. */
    public int fiberEnters() {
        return sumOverRings(ring -> ring.fiberEnters.get());
    }

    private int sumOverRings(ToIntFunction<ScriptedRing> count) {
        lock.lock();
        try {
            int total = 0;
            for (ScriptedRing ring : rings) {
                total += count.applyAsInt(ring);
            }
            return total;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits (real time, bounded) until a pending submission matches.
     *
     * @param match the predicate
     * @return the first match
     */
    public Pending awaitPending(Predicate<Pending> match) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        if (Thread.currentThread().isVirtual()) {
            // A fiber must not wait on the lock's condition: its only carrier is the worker, whose ring enter
            // takes the same lock, so a waiting fiber and its own carrier could block each other. Yield instead:
            // the worker services its ring between fiber turns.
            while (true) {
                lock.lock();
                try {
                    for (Pending entry : pending) {
                        if (match.test(entry)) {
                            return entry;
                        }
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("no pending submission matched within 10 s; pending: " + pending);
                    }
                } finally {
                    lock.unlock();
                }
                Thread.yield();
            }
        }
        lock.lock();
        try {
            while (true) {
                for (Pending entry : pending) {
                    if (match.test(entry)) {
                        return entry;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no pending submission matched within 10 s; pending: " + pending);
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Completes a pending submission with {@code result}.
     *
     * @param entry the submission
     * @param result its result
     */
    public void complete(Pending entry, int result) {
        lock.lock();
        try {
            if (!pending.remove(entry)) {
                throw new AssertionError("not pending: " + entry);
            }
            // Each ring reaps only its own completions: user data is only unique within one ring.
            entry.ring.ready.add(new long[] {entry.userData, result});
        } finally {
            lock.unlock();
        }
        wakeAll();
    }

    /**
     * Moves the clock forward without waking any ring, as real time passes while a worker runs fibers: a
     * worker notices only at its next service turn.
     */
    public void advanceSilently(long nanos) {
        nowNanos.addAndGet(nanos);
    }

    /** Moves the clock forward and wakes every ring. */
    public void advance(long nanos) {
        nowNanos.addAndGet(nanos);
        wakeAll();
    }

    private void wakeAll() {
        List<ScriptedRing> all;
        lock.lock();
        try {
            all = new ArrayList<>(rings);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (ScriptedRing ring : all) {
            ring.wake();
        }
    }

    /** Accept one submission; called under the lock. */
    private void accept(Pending entry) {
        submitted++;
        if (entry.opcode == Opcode.ASYNC_CANCEL) {
            Pending target = null;
            for (Pending candidate : pending) {
                if (candidate.userData == entry.target && candidate.ring == entry.ring) {
                    target = candidate;
                }
            }
            if (target != null) {
                pending.remove(target);
                entry.ring.ready.add(new long[] {target.userData, -Errno.ECANCELED});
                entry.ring.ready.add(new long[] {entry.userData, 0});
            } else {
                entry.ring.ready.add(new long[] {entry.userData, -Errno.ENOENT});
            }
            return;
        }
        if (entry.call != null) {
            // Storage metadata: the calls run at once against the in-memory files (whose guard is this kernel's
            // lock, held here by this thread: it is reentrant), as the synchronous calls they are; a test that
            // wants to hold one holds a call of MemoryFiles instead.
            entry.ring.ready.add(new long[] {entry.userData, entry.call.run()});
            return;
        }
        ToIntFunction<Pending> rule = autoComplete;
        int result = rule == null ? Integer.MIN_VALUE : rule.applyAsInt(entry);
        if (result == Integer.MIN_VALUE) {
            pending.add(entry);
        } else {
            entry.ring.ready.add(new long[] {entry.userData, result});
        }
        changed.signalAll();
    }

    /** One worker's ring. */
    public final class ScriptedRing implements Ring {
        private final int entries;
        private final List<Pending> staged = new ArrayList<>();
        /** Completions for this ring, not yet reaped; guarded by the kernel's lock. */
        private final List<long[]> ready = new ArrayList<>();
        /**
         * A wake since the last enter. Atomic, not guarded by the kernel's lock: {@link #wake()} is called from
         * fibers, some inside their worker's critical section, and must never block on a monitor.
         */
        private final java.util.concurrent.atomic.AtomicBoolean woken = new java.util.concurrent.atomic.AtomicBoolean();
        /** The thread blocked in {@link #enter}, for {@link #wake()} to unpark; null while nobody waits. */
        private volatile Thread waiter;
        private volatile boolean closed;
        /** Calls of {@link #enter}: service turns of the worker. */
        final java.util.concurrent.atomic.AtomicInteger enters = new java.util.concurrent.atomic.AtomicInteger();
        /** Calls of {@link #enter} made by a fiber of the worker (inline turns, {@link InlineTurns#turn}). */
        final java.util.concurrent.atomic.AtomicInteger fiberEnters = new java.util.concurrent.atomic.AtomicInteger();
        /** Calls of {@link #wake()}: what an eventfd write is on runtime-uring. */
        final java.util.concurrent.atomic.AtomicInteger wakes = new java.util.concurrent.atomic.AtomicInteger();
        /** Calls of {@link #enter} that waited for an event: the worker had nothing to do. */
        public final java.util.concurrent.atomic.AtomicInteger waits = new java.util.concurrent.atomic.AtomicInteger();
        /** Calls of {@link #enter} that blocked and were ended by the real-time cap, not by an event. */
        public final java.util.concurrent.atomic.AtomicInteger cappedWaits =
                new java.util.concurrent.atomic.AtomicInteger();

        ScriptedRing(int entries) {
            this.entries = entries;
        }

        @Override
        public int entries() {
            return entries;
        }

        @Override
        public boolean stage(Submission s) {
            if (staged.size() >= entries) {
                return false;
            }
            dev.lockstep.kernel.BlockingCall call = switch (s.opcode) {
                case OPENAT, MKDIRAT, UNLINKAT, STATX -> pathCall(s);
                default -> s.call;
            };
            staged.add(new Pending(s.opcode, s.fd, s.userData, s.length, s.offset, s.rwFlags, s.target, s.buffer,
                    this, call));
            return true;
        }

        /**
         * A path request (or a statx) runs at once against the in-memory files, as a blocking call does: its
         * fields are read now, since the submission is the engine's again after staging.
         */
        private dev.lockstep.kernel.BlockingCall pathCall(Submission s) {
            Opcode opcode = s.opcode;
            int flags = s.flags;
            int fd = s.fd;
            MemorySegment buffer = s.buffer;
            String path = opcode == Opcode.STATX ? null : new String(buffer.asSlice(0, s.length)
                    .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.UTF_8);
            return () -> {
                try {
                    switch (opcode) {
                        case OPENAT -> {
                            return files.open(path, flags);
                        }
                        case MKDIRAT -> files.mkdir(path);
                        case UNLINKAT -> {
                            if ((flags & Submission.AT_REMOVEDIR) != 0) {
                                files.rmdir(path);
                            } else {
                                files.unlink(path);
                            }
                        }
                        default -> {
                            buffer.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED,
                                    dev.lockstep.kernel.Statx.MASK_OFFSET, flags);
                            buffer.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED,
                                    dev.lockstep.kernel.Statx.SIZE_OFFSET, files.size(fd));
                            buffer.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED,
                                    dev.lockstep.kernel.Statx.MODE_OFFSET, (short) files.mode(fd));
                            buffer.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED,
                                    dev.lockstep.kernel.Statx.DIO_OFFSET_ALIGN_OFFSET, files.directIoAlignment(fd));
                        }
                    }
                    return 0;
                } catch (KernelException refused) {
                    return -refused.errno();
                }
            };
        }

        @Override
        public int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
            enters.incrementAndGet();
            if (Thread.currentThread().isVirtual()) {
                if (wait) {
                    throw new IllegalStateException("a fiber must never wait in the ring: its carrier is the worker");
                }
                fiberEnters.incrementAndGet();
            }
            List<long[]> mine = new ArrayList<>();
            lock.lockWithoutUnmounting(); // a fiber's inline turn calls enter inside its worker's borrow
            try {
                for (Pending entry : staged) {
                    accept(entry);
                }
                staged.clear();
            } finally {
                lock.unlock();
            }
            if (wait) {
                // Time is manual: a wait ends on a completion, a wake or a clock advance, never by itself (a short
                // real-time cap keeps a lost wake-up from hanging a test). Completions and clock advances wake the
                // ring, so waiting for woken is enough; the waiter is published before woken is read, and wake
                // sets woken before it reads the waiter, so one of the two always sees the other.
                waits.incrementAndGet();
                long capDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
                waiter = Thread.currentThread();
                while (!woken.get() && !hasReady()) {
                    long left = capDeadline - System.nanoTime();
                    if (left <= 0) {
                        cappedWaits.incrementAndGet();
                        break;
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(this, left);
                    if (Thread.currentThread().isInterrupted()) {
                        break;
                    }
                }
                waiter = null;
            }
            woken.set(false);
            lock.lockWithoutUnmounting(); // a fiber's inline turn calls enter inside its worker's borrow
            try {
                mine.addAll(ready);
                ready.clear();
            } finally {
                lock.unlock();
            }
            for (long[] completion : mine) {
                sink.complete(completion[0], (int) completion[1], 0);
            }
            return mine.size();
        }

        private boolean hasReady() {
            lock.lockWithoutUnmounting();
            try {
                return !ready.isEmpty();
            } finally {
                lock.unlock();
            }
        }

        /** Lock-free, like a real ring's eventfd write: fibers call it, some inside a critical section. */
        @Override
        public void wake() {
            wakes.incrementAndGet();
            woken.set(true);
            Thread blocked = waiter;
            if (blocked != null) {
                java.util.concurrent.locks.LockSupport.unpark(blocked);
            }
        }

        @Override
        public long nowNanos() {
            return nowNanos.get();
        }

        @Override
        public MemorySegment allocate(long bytes) {
            return MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
        }

        @Override
        public void free(MemorySegment segment) {
        }

        @Override
        public void close() {
            closed = true;
        }

        public boolean isClosed() {
            return closed;
        }
    }

    /** Files and directories in memory; enough for the engine's storage code. */
    public static final class MemoryFiles implements SystemCalls {
        /** The kernel's lock: file I/O runs under it in a ring enter, metadata calls and tests take it too. */
        private final FiberSafeLock guard;
        private final TreeMap<String, byte[]> fileData = new TreeMap<>();
        private final java.util.TreeSet<String> directories = new java.util.TreeSet<>();
        /** Paths of files that are FIFOs (an operator's {@code mkfifo}): they open as files, statx says FIFO. */
        private final java.util.TreeSet<String> fifos = new java.util.TreeSet<>();
        /** Paths of Unix sockets (a server's {@code bind}): {@code open(2)} of one fails {@code ENXIO}. */
        private final java.util.TreeSet<String> sockets = new java.util.TreeSet<>();
        private final TreeMap<Integer, String> open = new TreeMap<>();
        private final java.util.TreeSet<String> locked = new java.util.TreeSet<>();
        private final TreeMap<Integer, String> lockPaths = new TreeMap<>();
        private int nextFd = 100;
        public int fsyncs;

        MemoryFiles(FiberSafeLock guard) {
            this.guard = guard;
        }

        public int openCount() {
            guard.lock();
            try {
                return open.size();
            } finally {
                guard.unlock();
            }
        }

        public int execute(Pending entry) {
            guard.lock();
            try {
                String path = open.get(entry.fd);
                switch (entry.opcode) {
                    case READ -> {
                        if (path == null) {
                            return -Errno.EBADF;
                        }
                        byte[] data = fileData.get(path);
                        if (entry.offset >= data.length) {
                            return 0;
                        }
                        int count = (int) Math.min(entry.length, data.length - entry.offset);
                        MemorySegment.copy(data, (int) entry.offset, entry.buffer, java.lang.foreign.ValueLayout.JAVA_BYTE,
                                0, count);
                        return count;
                    }
                    case WRITE -> {
                        if (path == null) {
                            return -Errno.EBADF;
                        }
                        byte[] data = fileData.get(path);
                        long end = entry.offset + entry.length;
                        if (end > data.length) {
                            data = java.util.Arrays.copyOf(data, (int) end);
                            fileData.put(path, data);
                        }
                        MemorySegment.copy(entry.buffer, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, data,
                                (int) entry.offset, entry.length);
                        return entry.length;
                    }
                    case FSYNC -> {
                        if (path == null) {
                            return -Errno.EBADF;
                        }
                        if (failFsyncs > 0) {
                            failFsyncs--;
                            return -Errno.EIO;
                        }
                        fsyncs++;
                        return 0;
                    }
                    case NOP -> {
                        return 0;
                    }
                    case FTRUNCATE -> {
                        if (path == null) {
                            return -Errno.EBADF;
                        }
                        fileData.put(path, java.util.Arrays.copyOf(fileData.get(path), (int) entry.offset));
                        return 0;
                    }
                    default -> {
                        return Integer.MIN_VALUE;
                    }
                }
            } finally {
                guard.unlock();
            }
        }

        @Override
        public int open(String path, int flags) {
            guard.lock();
            try {
                if (sockets.contains(path)) {
                    throw new KernelException(Errno.ENXIO, "open", path);
                }
                if ((flags & O_DIRECTORY) != 0) {
                    if (!directories.contains(path)) {
                        throw new KernelException(Errno.ENOENT, "open", path);
                    }
                } else if (directories.contains(path) && (flags & 03) != 0) {
                    throw new KernelException(Errno.EISDIR, "open", path); // a directory opened for writing
                } else if (!fileData.containsKey(path)) {
                    if ((flags & O_CREAT) == 0) {
                        throw new KernelException(Errno.ENOENT, "open", path);
                    }
                    fileData.put(path, new byte[0]);
                }
                int fd = nextFd++;
                open.put(fd, path);
                return fd;
            } finally {
                guard.unlock();
            }
        }

        @Override
        public void close(int fd) {
            guard.lock();
            try {
                if (open.remove(fd) == null) {
                    throw new KernelException(Errno.EBADF, "close", Integer.toString(fd));
                }
                String lockPath = lockPaths.remove(fd);
                if (lockPath != null) {
                    locked.remove(lockPath);
                }
            } finally {
                guard.unlock();
            }
        }

        /** Puts a FIFO at {@code path}, as {@code mkfifo} would: it opens as a file and its statx says FIFO. */
        public void makeFifo(String path) {
            guard.lock();
            try {
                fileData.put(path, new byte[0]);
                fifos.add(path);
            } finally {
                guard.unlock();
            }
        }

        /** Puts a Unix socket at {@code path}, as a server's {@code bind} would: opening it fails {@code ENXIO}. */
        public void makeSocket(String path) {
            guard.lock();
            try {
                sockets.add(path);
            } finally {
                guard.unlock();
            }
        }

        /** {@code stx_mode} of an open file: a regular file's, or a FIFO's ({@link #makeFifo}). */
        public int mode(int fd) {
            guard.lock();
            try {
                return (fifos.contains(open.get(fd)) ? 0010000 : dev.lockstep.kernel.Statx.S_IFREG) | 0644;
            } finally {
                guard.unlock();
            }
        }

        @Override
        public int directIoAlignment(int fd) {
            return 512;
        }

        @Override
        public long size(int fd) {
            guard.lock();
            try {
                return fileData.get(open.get(fd)).length;
            } finally {
                guard.unlock();
            }
        }

        @Override
        public void truncate(int fd, long length) {
            guard.lock();
            try {
                String path = open.get(fd);
                fileData.put(path, java.util.Arrays.copyOf(fileData.get(path), (int) length));
            } finally {
                guard.unlock();
            }
        }

        @Override
        public void fsync(int fd) {
            guard.lock();
            try {
                if (failFsyncs > 0) {
                    failFsyncs--;
                    throw new KernelException(Errno.EIO, "fsync", open.get(fd));
                }
                fsyncs++;
            } finally {
                guard.unlock();
            }
        }

        /** The next {@code count} fsyncs, synchronous or through a ring, fail with EIO. */
        public int failFsyncs;

        @Override
        public void syncFileSystem(int fd) {
        }

        @Override
        public void mkdir(String path) {
            guard.lock();
            try {
                if (!directories.add(path)) {
                    throw new KernelException(Errno.EEXIST, "mkdir", path);
                }
            } finally {
                guard.unlock();
            }
        }

        @Override
        public void unlink(String path) {
            guard.lock();
            try {
                if (fileData.remove(path) == null) {
                    throw new KernelException(Errno.ENOENT, "unlink", path);
                }
            } finally {
                guard.unlock();
            }
        }

        @Override
        public void rename(String from, String to) {
            guard.lock();
            try {
                byte[] data = fileData.remove(from);
                if (data == null) {
                    throw new KernelException(Errno.ENOENT, "rename", from);
                }
                fileData.put(to, data);
            } finally {
                guard.unlock();
            }
        }

        @Override
        public void rmdir(String path) {
            guard.lock();
            try {
                directories.remove(path);
            } finally {
                guard.unlock();
            }
        }

        @Override
        public List<String> list(String path) {
            guard.lock();
            try {
                List<String> names = new ArrayList<>();
                for (String file : fileData.keySet()) {
                    if (file.startsWith(path + "/") && file.indexOf('/', path.length() + 1) < 0) {
                        names.add(file.substring(path.length() + 1));
                    }
                }
                return names;
            } finally {
                guard.unlock();
            }
        }

        @Override
        public boolean isDirectory(String path) {
            guard.lock();
            try {
                if (fileData.containsKey(path)) {
                    throw new KernelException(Errno.ENOTDIR, "stat", path);
                }
                return directories.contains(path);
            } finally {
                guard.unlock();
            }
        }

        @Override
        public int lock(String path) {
            guard.lock();
            try {
                if (locked.contains(path)) {
                    throw new KernelException(Errno.EWOULDBLOCK, "flock", path);
                }
                int fd = open(path, O_CREAT | O_RDWR);
                locked.add(path);
                lockPaths.put(fd, path);
                return fd;
            } finally {
                guard.unlock();
            }
        }


        @Override
        public int socket(InetSocketAddress address) {
            throw new KernelException(Errno.ENOSYS, "socket", address.toString());
        }

        @Override
        public void bindAndListen(int fd, InetSocketAddress address, int backlog) {
            throw new KernelException(Errno.ENOSYS, "bind", address.toString());
        }

        @Override
        public void noDelay(int fd) {
        }

        @Override
        public InetSocketAddress localAddress(int fd) {
            throw new KernelException(Errno.ENOSYS, "getsockname", Integer.toString(fd));
        }

        @Override
        public InetSocketAddress peerAddress(int fd) {
            throw new KernelException(Errno.ENOSYS, "getpeername", Integer.toString(fd));
        }

        @Override
        public void shutdownWrite(int fd) {
        }

        @Override
        public MemorySegment sockaddr(Ring ring, InetSocketAddress address) {
            return ring.allocate(16);
        }
    }
}
