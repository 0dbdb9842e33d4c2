package dev.lockstep.sim.os;

import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A miniature scheduler for tests: one generator, auditor, clock and network; kernels for hosts; and a loop that
 * enters rings and jumps the clock to the next kernel event, as the real scheduler will.
 */
public final class Harness {
    /** The longest a test waits in simulated time before declaring a stall. */
    static final long STALL_NANOS = 60_000_000_000L;

    final Generator generator;
    final Auditor auditor = new Auditor();
    final SimClock clock = new SimClock();
    final SimNetwork network;
    final List<SimKernel> kernels = new ArrayList<>();
    final List<Completion> log = new ArrayList<>();
    /** Delivered completions no {@link #await} has claimed yet. */
    final List<Completion> unclaimed = new ArrayList<>();

    /** One delivered completion, with the ring it came from and the time it was delivered. */
    record Completion(long ringId, long userData, int result, long atNanos) {
    }

    public Harness(long seed) {
        this(seed, NetworkConfig.DEFAULT);
    }

    Harness(long seed, NetworkConfig networkConfig) {
        generator = new Generator(seed);
        generator.setObserver(auditor.drawRecorder());
        network = new SimNetwork(generator, auditor, clock, networkConfig);
    }

    static InetAddress ip(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    SimKernel kernel(String hostIp, KernelBehavior behavior, StorageFaults faults) {
        SimKernel kernel = SimKernel.builder(generator, auditor, clock)
                .hostAddress(ip(hostIp))
                .network(network)
                .behavior(behavior)
                .fileSystem(new SimFileSystem(generator, auditor, faults))
                .build();
        kernels.add(kernel);
        return kernel;
    }

    public SimKernel kernel() {
        return kernel("127.0.0.1", KernelBehavior.DEFAULT, StorageFaults.NONE);
    }

    /** Enters every ring of every kernel once, in kernel and ring order; returns the completions delivered. */
    List<Completion> pump() {
        List<Completion> delivered = new ArrayList<>();
        for (SimKernel kernel : kernels) {
            for (SimRing ring : kernel.rings()) {
                ring.enter(false, 0, (userData, result, flags) -> delivered.add(
                        new Completion(ring.id(), userData, result, clock.nowNanos())));
            }
        }
        log.addAll(delivered);
        unclaimed.addAll(delivered);
        return delivered;
    }

    /** The earliest next event over every kernel. */
    long nextEventNanos() {
        long earliest = Long.MAX_VALUE;
        for (SimKernel kernel : kernels) {
            earliest = Math.min(earliest, kernel.nextEventNanos());
        }
        return earliest;
    }

    /** Pumps and jumps the clock until the completion with this user data arrives; fails on a stall. */
    Completion await(long userData) {
        long giveUpAt = clock.nowNanos() + STALL_NANOS;
        while (true) {
            for (int i = 0; i < unclaimed.size(); i++) {
                if (unclaimed.get(i).userData() == userData) {
                    return unclaimed.remove(i);
                }
            }
            if (!pump().isEmpty()) {
                continue;
            }
            long next = nextEventNanos();
            if (next == Long.MAX_VALUE || next > giveUpAt) {
                throw new AssertionError("stalled waiting for userData " + userData + " at " + clock.nowNanos());
            }
            clock.advanceTo(Math.max(next, clock.nowNanos()));
        }
    }

    /** Pumps and jumps the clock until nothing is in flight anywhere (or only waits that never end). */
    void drain() {
        while (true) {
            pump();
            long next = nextEventNanos();
            if (next == Long.MAX_VALUE) {
                return;
            }
            clock.advanceTo(Math.max(next, clock.nowNanos()));
        }
    }

    /** Stages and submits one entry; returns its completion's result once delivered. */
    int run(SimRing ring, Submission submission) {
        stage(ring, submission);
        return await(submission.userData).result();
    }

    static void stage(SimRing ring, Submission submission) {
        if (!ring.stage(submission)) {
            throw new AssertionError("ring refused " + submission);
        }
    }

    // ------------------------------------------------------------------------------------ submissions

    static MemorySegment bytes(SimRing ring, byte[] data) {
        MemorySegment segment = ring.allocate(data.length);
        MemorySegment.copy(data, 0, segment, ValueLayout.JAVA_BYTE, 0, data.length);
        return segment;
    }

    static MemorySegment text(SimRing ring, String text) {
        return bytes(ring, text.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] read(MemorySegment segment, int length) {
        byte[] data = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, 0, data, 0, length);
        return data;
    }

    static String text(MemorySegment segment, int length) {
        return new String(read(segment, length), StandardCharsets.UTF_8);
    }

    // ----------------------------------------------------------------------------------- connections

    /** An established connection: the client's fd and the server's accepted fd. */
    record Connection(int clientFd, int serverFd, int listenerFd) {
    }

    /** Listens on {@code server}, connects from {@code client}, accepts; both rings are the kernels' first. */
    Connection connect(SimKernel server, SimRing serverRing, SimKernel client, SimRing clientRing, int port) {
        InetSocketAddress address = new InetSocketAddress(server.hostAddress(), port);
        int listener = server.system().socket(address);
        server.system().bindAndListen(listener, address, 16);
        int clientFd = client.system().socket(address);
        MemorySegment sockaddr = client.system().sockaddr(clientRing, address);
        stage(clientRing, Submissions.connect(clientFd, sockaddr, 9001));
        stage(serverRing, Submissions.accept(listener, 9002));
        int connected = await(9001).result();
        if (connected != 0) {
            throw new AssertionError("connect failed: " + connected);
        }
        int accepted = await(9002).result();
        clientRing.free(sockaddr);
        return new Connection(clientFd, accepted, listener);
    }
}
