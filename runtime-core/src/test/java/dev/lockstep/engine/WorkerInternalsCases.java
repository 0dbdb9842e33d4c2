package dev.lockstep.engine;

import static dev.lockstep.Turns.reschedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.Blob;
import dev.lockstep.BufferPool;
import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Cases that can only be observed inside the engine and must hold on both runtimes: the worker a task runs on
 * (placement of {@code spawn} and {@code spawnOn}), calls refused by a closing worker, and raw requests on the
 * kernel SPI (what both kernels do below the engine's checks). runtime-sim's {@code SimWorkerInternalsTest} and
 * runtime-uring's {@code UringWorkerInternalsTest} run them, with the ring size the conformance suite uses.
 */
public abstract class WorkerInternalsCases extends WhiteBoxCases {
    private static final int RING = 64;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code test_spawn_dedicated}, as placement: {@code spawnOn} runs the task on that worker. */
    @WhiteBoxCase
    void testSpawnDedicated(WhiteBoxRuntime rt) {
        runner(rt, RING).start(ctx -> {
            for (int worker = 0; worker < ctx.workers(); worker++) {
                int expected = worker;
                Handle<Integer> handle = ctx.child("on" + worker).spawnOn(worker,
                        c -> rt.worker().index());
                assertEquals(expected, handle.await());
            }
            assertThrows(IllegalArgumentException.class, () -> ctx.child("bad").spawnOn(ctx.workers(), c -> 0));
            return null;
        });
    }

    /**
     * Root-level tasks, spawned from the root context and from a child of it, land on consecutive workers
     * (wrapping), the first on the worker after the root's; each spawns a nested task, which shares its worker.
     */
    @WhiteBoxCase
    void testRootLevelTasksSpreadRoundRobinAndNestedTasksStayLocal(WhiteBoxRuntime rt) {
        runner(rt, RING).start(ctx -> {
            int workers = ctx.workers();
            int root = rt.worker().index();
            List<Handle<int[]>> handles = new ArrayList<>();
            for (int i = 0; i < 2 * workers + 1; i++) {
                // Every other one from a grandchild context of the root: still root-level, still the root's spawn.
                var context = i % 2 == 0 ? ctx.child("task" + i) : ctx.child("group" + i).child("task");
                handles.add(context.spawn(c -> {
                    int own = rt.worker().index();
                    int nested = c.child("nested").spawn(n -> rt.worker().index()).await();
                    return new int[] {own, nested};
                }));
            }
            for (int i = 0; i < handles.size(); i++) {
                int[] placed = handles.get(i).await();
                assertEquals((root + 1 + i) % workers, placed[0], "root-level task " + i + " of " + workers
                        + " workers");
                assertEquals(placed[0], placed[1], "a task spawned by root-level task " + i + " stays on its worker");
            }
            return null;
        });
    }

    /**
     * Calls refused by a closing worker release what they took: after a {@code readAt}, {@code writeAt},
     * {@code resize}, {@code sync} or {@code startSync} is refused and its blob closed, the blob's file is
     * closed. One blob per call, so a leak names the call.
     */
    @WhiteBoxCase
    void testRefusedCallsReleaseTheFile(WhiteBoxRuntime rt) {
        WhiteBoxRuntime probe = rt;
        List<String> calls = List.of("readAt", "writeAt", "resize", "sync", "startSync");
        List<String> leaking = runner(rt, RING).start(ctx -> {
            List<Blob> blobs = new ArrayList<>();
            List<Integer> fds = new ArrayList<>();
            for (String call : calls) {
                java.util.Set<Integer> before = probe.openFds();
                Blob blob = ctx.open("partition", call).await().blob();
                blob.writeAt(0, bytes("data")).await();
                java.util.Set<Integer> opened = probe.openFds();
                opened.removeAll(before);
                assertEquals(1, opened.size(), "opening a blob opens one file");
                blobs.add(blob);
                fds.add(opened.iterator().next());
            }
            probe.markClosing();
            List<Runnable> refused = List.of(
                    () -> blobs.get(0).readAt(0, 1).await(),
                    () -> blobs.get(1).writeAt(0, bytes("x")).await(),
                    () -> blobs.get(2).resize(10).await(),
                    () -> blobs.get(3).sync().await(),
                    () -> blobs.get(4).startSync().await());
            List<String> leaks = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                assertThrows(ClosedException.class, refused.get(i)::run, calls.get(i));
                blobs.get(i).close();
                // Releases may be deferred to the worker's next turn (outside its critical section); a closing
                // worker refuses sleeps, so plain turns.
                int fd = fds.get(i);
                for (int turn = 0; turn < 1000 && probe.openFds().contains(fd); turn++) {
                    reschedule();
                }
                if (probe.openFds().contains(fd)) {
                    leaks.add(calls.get(i));
                }
            }
            return leaks;
        });
        assertEquals(List.of(), leaking, "refused calls whose blob's file stayed open after close");
    }

    /**
     * One 8 MiB send, received by a raw RECV asking for all of it: how many completions the kernel takes. On
     * Linux the bytes arrive in pieces and a RECV returns what has arrived; a probe, it asserts only the total.
     */
    @WhiteBoxCase
    void testLargeSendArrivesInPieces(WhiteBoxRuntime rt) {
        runner(rt, RING).start(ctx -> {
            try (SocketPair pair = rt.socketPair(ctx)) {
                int length = 8 << 20;
                byte[] data = new byte[length];
                Registration<Void> send = rt.worker().register(
                        new SocketPair.SendRequest(pair.fd().acquire(), data));
                List<Integer> pieces = new ArrayList<>();
                Registration<byte[]> recv = rt.worker().register(
                        new SocketPair.RecvRequest(pair.peer().acquire(), length, pieces));
                ctx.timeout(Duration.ofSeconds(10), () -> {
                    send.await();
                    return recv.await();
                });
                System.out.println("PROBE " + rt + " RECV completions for one 8 MiB send: " + pieces.size()
                        + " first " + pieces.subList(0, Math.min(5, pieces.size())));
            }
            return null;
        });
    }

    /**
     * Below the engine's checks, the kernels agree: on an {@code O_DIRECT} file a transfer whose offset or length
     * is not a multiple of the alignment fails with {@code EINVAL}, an aligned one moves its bytes (from a
     * misaligned address too, as ext4 does), and a direct read at or past the end of the file returns 0.
     */
    @WhiteBoxCase
    void testKernelRefusesMisalignedDirectIo(WhiteBoxRuntime rt) {
        Path directory = rt.isSim() ? null : freshDirectory();
        runner(rt, RING).start(ctx -> {
            Worker worker = rt.worker();
            SystemCalls system = worker.engine().kernel().system();
            String path = rt.isSim() ? "/raw-direct" : directory.resolve("raw").toString();
            int fd = system.open(path, SystemCalls.O_RDWR | SystemCalls.O_CREAT | SystemCalls.O_DIRECT);
            try (Arena arena = Arena.ofShared()) {
                int alignment = system.directIoAlignment(fd);
                assertEquals(512, alignment,
                        "the machine these tests run on has 512-byte blocks, as the simulator");
                MemorySegment memory = arena.allocate(3L * alignment, BufferPool.PAGE_BYTES);
                assertEquals(alignment, raw(worker, Opcode.WRITE, fd, memory, alignment, 0));
                assertEquals(-Errno.EINVAL, raw(worker, Opcode.WRITE, fd, memory, alignment, 1));
                assertEquals(-Errno.EINVAL, raw(worker, Opcode.WRITE, fd, memory, alignment / 2, 0));
                // ext4 moves bytes from and to a misaligned address (the engine refuses one at the call).
                assertEquals(alignment, raw(worker, Opcode.WRITE, fd, memory.asSlice(1), alignment, 0));
                assertEquals(alignment, raw(worker, Opcode.READ, fd, memory.asSlice(alignment), alignment, 0));
                assertEquals(-Errno.EINVAL, raw(worker, Opcode.READ, fd, memory, alignment, alignment / 2));
                assertEquals(-Errno.EINVAL, raw(worker, Opcode.READ, fd, memory, 100, 0));
                assertEquals(alignment, raw(worker, Opcode.READ, fd, memory.asSlice(8), alignment, 0));
                // At the end of the file a direct read returns 0 before any alignment check.
                assertEquals(0, raw(worker, Opcode.READ, fd, memory, alignment, alignment));
                assertEquals(0, raw(worker, Opcode.READ, fd, memory, alignment, alignment + 3));
            } finally {
                system.close(fd);
            }
            return null;
        });
    }

    private static int raw(Worker worker, Opcode opcode, int fd, MemorySegment buffer, int length, long offset) {
        return (Integer) worker.register(new RawTransfer(opcode, fd, buffer, length, offset)).await();
    }
}
