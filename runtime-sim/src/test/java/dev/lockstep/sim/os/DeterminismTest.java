package dev.lockstep.sim.os;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_DIRECTORY;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.CrashReport;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.StorageFaults;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Same seed, same calls: same completions, same times, same audit digest. A mixed script of file and network
 * calls under an adversarial kernel (short transfers, spurious errors, cancel races, storage faults, jitter,
 * random connection breaks) must replay bit for bit, and other seeds must take other paths.
 */
class DeterminismTest {

    /** Everything observable about one run. */
    private record Run(List<Harness.Completion> completions, String digest, long endNanos, String recovered,
            String echoed) {
    }

    private static final class Script {
        final Harness harness;
        final SimKernel a;
        final SimKernel b;
        final SimRing ringA;
        final SimRing ringB;
        final StorageFaults faults;
        long nextUserData = 1;

        Script(long seed) {
            harness = new Harness(seed, NetworkConfig.DEFAULT.withBreakRate(0.02));
            StorageFaults faults = StorageFaults.builder().readRate(0.05).writeRate(0.05).syncRate(0.05)
                    .partialWriteRate(0.5).build();
            this.faults = faults;
            a = harness.kernel("127.0.0.1", KernelBehavior.adversarial(), StorageFaults.NONE);
            b = harness.kernel("127.0.0.2", KernelBehavior.adversarial(), faults);
            ringA = a.openRing(8);
            ringB = b.openRing(8);
        }

        /** Runs one transfer to completion, retrying EAGAIN and EINTR as the engine does. */
        int transfer(SimRing ring, Opcode opcode, int fd, MemorySegment buffer, int length, long offset) {
            while (true) {
                long userData = nextUserData++;
                int result = harness.run(ring, Submissions.io(opcode, fd, buffer, length, offset, userData));
                if (result != -Errno.EAGAIN && result != -Errno.EINTR) {
                    return result;
                }
            }
        }

        /** Sends or writes every byte (short transfers continue), or stops at the first error. */
        void transferAll(SimRing ring, Opcode opcode, int fd, byte[] data, long offset) {
            int done = 0;
            while (done < data.length) {
                MemorySegment chunk = Harness.bytes(ring, Arrays.copyOfRange(data, done, data.length));
                int result = transfer(ring, opcode, fd, chunk, data.length - done, offset + done);
                ring.free(chunk);
                if (result <= 0) {
                    return;
                }
                done += result;
            }
        }

        /** Receives up to {@code length} bytes, until end of stream or an error. */
        byte[] receive(SimRing ring, int fd, int length) {
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            MemorySegment buffer = ring.allocate(length);
            while (received.size() < length) {
                int result = transfer(ring, Opcode.RECV, fd, buffer, length - received.size(), 0);
                if (result <= 0) {
                    break;
                }
                received.write(Harness.read(buffer, result), 0, result);
            }
            ring.free(buffer);
            return received.toByteArray();
        }

        Run run() {
            // Files on host a: overlapping writes in flight together, a sync, more writes, a read, a crash.
            int fd = a.system().open("/data", O_RDWR | O_CREAT);
            a.system().fsync(a.system().open("/", O_DIRECTORY));
            a.fileSystem().setFaults(faults); // after the file is durably created: every seed has a file to recover
            List<MemorySegment> buffers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                byte[] data = new byte[700];
                Arrays.fill(data, (byte) ('a' + i));
                MemorySegment buffer = Harness.bytes(ringA, data);
                buffers.add(buffer);
                Harness.stage(ringA, Submissions.io(Opcode.WRITE, fd, buffer, 700, i * 300L, nextUserData++));
            }
            harness.drain();
            buffers.forEach(ringA::free);
            Submission sync = Submissions.fsync(fd, nextUserData++);
            sync.flags = Submission.FSYNC_DATASYNC;
            harness.run(ringA, sync);
            transferAll(ringA, Opcode.WRITE, fd, "unsynced tail".getBytes(), 2000);
            MemorySegment readBuffer = ringA.allocate(4096);
            transfer(ringA, Opcode.READ, fd, readBuffer, 4096, 0);
            ringA.free(readBuffer);

            // Network: b listens, a connects, sends, b echoes; a receive on a is cancelled midway.
            Harness.Connection connection = harness.connect(b, ringB, a, ringA, 9000);
            StringBuilder echoed = new StringBuilder();
            for (int message = 0; message < 5; message++) {
                byte[] payload = ("message " + message + " ").repeat(20).getBytes();
                transferAll(ringA, Opcode.SEND, connection.clientFd(), payload, 0);
                byte[] atServer = receive(ringB, connection.serverFd(), payload.length);
                transferAll(ringB, Opcode.SEND, connection.serverFd(), atServer, 0);
                echoed.append(new String(receive(ringA, connection.clientFd(), atServer.length))).append('|');
            }
            MemorySegment pending = ringA.allocate(64);
            long recvUserData = nextUserData++;
            Harness.stage(ringA, Submissions.io(Opcode.RECV, connection.clientFd(), pending, 64, 0, recvUserData));
            harness.pump();
            Harness.stage(ringA, Submissions.cancel(recvUserData, nextUserData++));
            harness.drain();
            ringA.free(pending);
            b.system().close(connection.listenerFd());

            CrashReport report = a.fileSystem().crash(CrashPolicy.SUBSET);
            String recovered = new String(a.fileSystem().contents("/data")) + report.files();
            return new Run(List.copyOf(harness.log), harness.auditor.digest(), harness.clock.nowNanos(), recovered,
                    echoed.toString());
        }
    }

    @Test
    void sameSeedReplaysBitForBit() {
        for (long seed : new long[] {1, 42, -7}) {
            Run first = new Script(seed).run();
            Run second = new Script(seed).run();
            assertTrue(first.completions().size() > 30, "the script did real work");
            assertEquals(first.completions(), second.completions(), "seed " + seed);
            assertEquals(first.endNanos(), second.endNanos());
            assertEquals(first.recovered(), second.recovered());
            assertEquals(first.echoed(), second.echoed());
            assertEquals(first.digest(), second.digest(), "seed " + seed);
        }
    }

    @Test
    void differentSeedsGiveDifferentDigests() {
        Set<String> digests = new HashSet<>();
        for (long seed = 100; seed < 110; seed++) {
            assertTrue(digests.add(new Script(seed).run().digest()), "seed " + seed + " repeated a digest");
        }
    }
}
