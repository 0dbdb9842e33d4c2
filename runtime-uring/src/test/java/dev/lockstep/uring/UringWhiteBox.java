package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.lockstep.Runner;
import dev.lockstep.engine.WhiteBoxRuntime;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;

/**
 * runtime-uring's configurations of the engine's white-box cases: one and two worker threads. A direct peer
 * write is a plain {@code send(2)} on the peer's socket from the calling thread, past the ring, like the seed's
 * {@code peer.write_all} on a {@code UnixStream}.
 *
 * @param workers worker threads
 */
record UringWhiteBox(int workers) implements WhiteBoxRuntime {

    /** The configurations, in the order their runs are reported. */
    static final List<WhiteBoxRuntime> ALL = List.of(new UringWhiteBox(1), new UringWhiteBox(2));

    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    @SuppressWarnings("restricted")
    private static final MethodHandle SEND = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("send").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));

    @Override
    public Runner runner(int ringEntries, Path storage, boolean leakChecked) {
        return UringRunner.builder().workers(workers).ringEntries(ringEntries).storage(storage).build();
    }

    @Override
    public boolean isSim() {
        return false;
    }

    @Override
    public java.util.Set<Integer> openFds() {
        java.util.Set<Integer> fds = new java.util.TreeSet<>();
        try (java.util.stream.Stream<Path> entries = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            entries.forEach(entry -> {
                try {
                    // The listing's own directory fd takes the lowest free number (often one just closed): skip it.
                    String target = java.nio.file.Files.readSymbolicLink(entry).toString();
                    if (target.startsWith("/proc/") && target.endsWith("/fd")) {
                        return;
                    }
                } catch (java.io.IOException closedMeanwhile) {
                    return;
                }
                fds.add(Integer.parseInt(entry.getFileName().toString()));
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return fds;
    }

    @Override
    public void writeDirect(int peerFd, byte[] data) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(Math.max(1, data.length));
            MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, 0, data.length);
            long done = 0;
            int attempts = 0;
            while (done < data.length) {
                long sent = (long) SEND.invokeExact(peerFd, buffer.asSlice(done), (long) data.length - done,
                        MSG_DONTWAIT | MSG_NOSIGNAL);
                if (sent < 0) {
                    // A full socket buffer (EAGAIN): the receiver drains it; try again.
                    if (++attempts > 1_000_000) {
                        throw new IllegalStateException("direct write to fd " + peerFd + " made no progress");
                    }
                    Thread.onSpinWait();
                    continue;
                }
                done += sent;
            }
        } catch (Throwable e) {
            if (e instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException("send(2) on fd " + peerFd + " failed: " + e, e);
        }
    }

    @Override
    public String toString() {
        return "[uring workers=" + workers + "]";
    }
}
