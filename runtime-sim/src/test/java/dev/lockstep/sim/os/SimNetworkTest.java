package dev.lockstep.sim.os;

import static dev.lockstep.sim.os.SimFileSystemTest.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.LinkProfile;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.StorageFaults;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimNetworkTest {

    private static final long LATENCY = 1_000_000; // 1 ms, no jitter: exact arrival times

    private final Harness harness =
            new Harness(31, NetworkConfig.DEFAULT.withDefaultLink(new LinkProfile(LATENCY, 0)));
    private final SimKernel server = harness.kernel("127.0.0.1", KernelBehavior.DEFAULT.withLatency(0, 0),
            StorageFaults.NONE);
    private final SimKernel client = harness.kernel("127.0.0.2", KernelBehavior.DEFAULT.withLatency(0, 0),
            StorageFaults.NONE);
    private final SimRing serverRing = server.openRing(8);
    private final SimRing clientRing = client.openRing(8);
    private long nextUserData = 100;

    private long send(SimRing ring, int fd, String text) {
        MemorySegment buffer = Harness.text(ring, text);
        long userData = nextUserData++;
        Harness.stage(ring, Submissions.io(Opcode.SEND, fd, buffer, (int) buffer.byteSize(), 0, userData));
        return userData;
    }

    private record Receive(long userData, MemorySegment buffer) {
    }

    private Receive recv(SimRing ring, int fd, int length) {
        MemorySegment buffer = ring.allocate(length);
        long userData = nextUserData++;
        Harness.stage(ring, Submissions.io(Opcode.RECV, fd, buffer, length, 0, userData));
        return new Receive(userData, buffer);
    }

    private String received(Receive receive) {
        int result = harness.await(receive.userData()).result();
        assertTrue(result >= 0, "recv failed: " + Errno.describe(-result));
        return Harness.text(receive.buffer(), result);
    }

    @Test
    void echoAcrossALinkTakesOneLatencyEachWay() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        assertEquals(new InetSocketAddress(server.hostAddress(), 7000),
                client.system().peerAddress(connection.clientFd()));
        assertEquals(client.system().localAddress(connection.clientFd()),
                server.system().peerAddress(connection.serverFd()));

        Receive atServer = recv(serverRing, connection.serverFd(), 64);
        long sentAt = harness.clock.nowNanos();
        assertEquals(5, harness.await(send(clientRing, connection.clientFd(), "hello")).result());
        assertEquals("hello", received(atServer));
        assertEquals(sentAt + LATENCY, harness.clock.nowNanos(), "arrives exactly one latency later");

        Receive atClient = recv(clientRing, connection.clientFd(), 64);
        harness.await(send(serverRing, connection.serverFd(), "HELLO"));
        assertEquals("HELLO", received(atClient));
        assertEquals(sentAt + 2 * LATENCY, harness.clock.nowNanos());
    }

    @Test
    void receiveWaitsForDataAndDeliveryStaysInOrder() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        Receive waiting = recv(serverRing, connection.serverFd(), 64);
        harness.pump();
        assertEquals(Long.MAX_VALUE, harness.nextEventNanos(), "a receive without data waits, no event due");
        for (String part : new String[] {"a", "b", "c", "d"}) {
            harness.await(send(clientRing, connection.clientFd(), part));
        }
        StringBuilder stream = new StringBuilder(received(waiting));
        while (stream.length() < 4) {
            stream.append(received(recv(serverRing, connection.serverFd(), 64)));
        }
        assertEquals("abcd", stream.toString());
    }

    @Test
    void partitionHoldsDataUntilHealed() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        harness.network.partition(server.hostAddress(), client.hostAddress());
        Receive atServer = recv(serverRing, connection.serverFd(), 64);
        harness.await(send(clientRing, connection.clientFd(), "held"));
        harness.pump();
        assertEquals(Long.MAX_VALUE, harness.nextEventNanos(), "nothing crosses the partition");
        harness.clock.advanceBy(10 * LATENCY);
        assertTrue(harness.pump().isEmpty());

        harness.network.heal(server.hostAddress(), client.hostAddress());
        long healedAt = harness.clock.nowNanos();
        assertEquals("held", received(atServer));
        assertEquals(healedAt + LATENCY, harness.clock.nowNanos(), "delivered one latency after the heal");
    }

    @Test
    void connectAcrossAPartitionTimesOut() {
        harness.network.partition(server.hostAddress(), client.hostAddress());
        InetSocketAddress address = new InetSocketAddress(server.hostAddress(), 7000);
        int listener = server.system().socket(address);
        server.system().bindAndListen(listener, address, 4);
        int fd = client.system().socket(address);
        MemorySegment sockaddr = client.system().sockaddr(clientRing, address);
        long startedAt = harness.clock.nowNanos();
        assertEquals(-Errno.ETIMEDOUT, harness.run(clientRing, Submissions.connect(fd, sockaddr, 1)));
        assertEquals(startedAt + NetworkConfig.DEFAULT.connectTimeoutNanos(), harness.clock.nowNanos());
    }

    @Test
    void oneWayPartitionBlocksOnlyItsDirection() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        harness.network.partitionOneWay(client.hostAddress(), server.hostAddress());
        assertTrue(harness.network.isPartitioned(client.hostAddress(), server.hostAddress()));
        Receive atServer = recv(serverRing, connection.serverFd(), 64);
        Receive atClient = recv(clientRing, connection.clientFd(), 64);
        harness.await(send(clientRing, connection.clientFd(), "up"));
        harness.await(send(serverRing, connection.serverFd(), "down"));
        assertEquals("down", received(atClient), "server to client still flows");
        harness.clock.advanceBy(100 * LATENCY);
        harness.pump();
        assertTrue(harness.unclaimed.stream().noneMatch(c -> c.userData() == atServer.userData()));
        harness.network.healAll();
        assertEquals("up", received(atServer));
    }

    @Test
    void resetConnectionFailsPendingAndLaterCallsWithEconnreset() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        Receive pending = recv(serverRing, connection.serverFd(), 64);
        harness.pump();
        InetSocketAddress clientAddress = client.system().localAddress(connection.clientFd());
        assertTrue(harness.network.breakConnection(clientAddress, new InetSocketAddress(server.hostAddress(), 7000)));
        assertEquals(-Errno.ECONNRESET, harness.await(pending.userData()).result());
        assertEquals(-Errno.ECONNRESET, harness.await(send(clientRing, connection.clientFd(), "x")).result());
        assertEquals(-Errno.ECONNRESET, harness.await(recv(clientRing, connection.clientFd(), 8).userData()).result());
    }

    @Test
    void breakRateResetsOnSend() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        harness.network.setConfig(harness.network.config().withBreakRate(1.0));
        assertEquals(-Errno.ECONNRESET, harness.await(send(clientRing, connection.clientFd(), "x")).result());
        assertEquals(-Errno.ECONNRESET,
                harness.await(recv(serverRing, connection.serverFd(), 8).userData()).result());
    }

    @Test
    void orderlyCloseReadsAsEndOfStreamAfterTheData() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        harness.await(send(clientRing, connection.clientFd(), "last words"));
        client.system().close(connection.clientFd());
        assertEquals("last words", received(recv(serverRing, connection.serverFd(), 64)));
        assertEquals(0, harness.await(recv(serverRing, connection.serverFd(), 64).userData()).result());
        assertEquals(0, harness.await(recv(serverRing, connection.serverFd(), 64).userData()).result());
    }

    @Test
    void shutdownWriteEndsTheStreamAndFailsLaterSends() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        client.system().shutdownWrite(connection.clientFd());
        assertEquals(0, harness.await(recv(serverRing, connection.serverFd(), 8).userData()).result());
        assertEquals(-Errno.EPIPE, harness.await(send(clientRing, connection.clientFd(), "x")).result());
    }

    @Test
    void connectToAPortNobodyListensOnIsRefused() {
        InetSocketAddress address = new InetSocketAddress(server.hostAddress(), 7001);
        int fd = client.system().socket(address);
        MemorySegment sockaddr = client.system().sockaddr(clientRing, address);
        long startedAt = harness.clock.nowNanos();
        assertEquals(-Errno.ECONNREFUSED, harness.run(clientRing, Submissions.connect(fd, sockaddr, 1)));
        assertEquals(startedAt + 2 * LATENCY, harness.clock.nowNanos(), "refused after one round trip");
    }

    @Test
    void bindingAnAddressInUseOrNotOursFails() {
        InetSocketAddress address = new InetSocketAddress(server.hostAddress(), 7000);
        int first = server.system().socket(address);
        server.system().bindAndListen(first, address, 4);
        int second = server.system().socket(address);
        assertErrno(Errno.EADDRINUSE, () -> server.system().bindAndListen(second, address, 4));
        assertErrno(Errno.EADDRINUSE,
                () -> server.system().bindAndListen(second, new InetSocketAddress("0.0.0.0", 7000), 4));
        assertErrno(Errno.EADDRNOTAVAIL,
                () -> server.system().bindAndListen(second, new InetSocketAddress(client.hostAddress(), 7000), 4));
        server.system().close(first);
        server.system().bindAndListen(second, address, 4);

        int ephemeral = server.system().socket(address);
        server.system().bindAndListen(ephemeral, new InetSocketAddress(server.hostAddress(), 0), 4);
        assertEquals(SimNetwork.FIRST_EPHEMERAL_PORT, server.system().localAddress(ephemeral).getPort());
        assertErrno(Errno.ENOTCONN, () -> server.system().peerAddress(ephemeral));
        int file = server.system().open("/f", dev.lockstep.kernel.SystemCalls.O_RDWR
                | dev.lockstep.kernel.SystemCalls.O_CREAT);
        assertErrno(Errno.ENOTSOCK, () -> server.system().bindAndListen(file, address, 4));
    }

    /**
     * Port 0 takes the lowest ephemeral port not in use on the host: past ports bound explicitly inside the range,
     * and again a port once its socket closed; a port in use on another host does not count.
     */
    @Test
    void anEphemeralPortIsTheLowestFreeOneOnItsHost() {
        InetSocketAddress any = new InetSocketAddress(server.hostAddress(), 0);
        int first = SimNetwork.FIRST_EPHEMERAL_PORT;
        int fixed = server.system().socket(any);
        server.system().bindAndListen(fixed, new InetSocketAddress(server.hostAddress(), first + 1), 4);
        int elsewhere = client.system().socket(any);
        client.system().bindAndListen(elsewhere, new InetSocketAddress(client.hostAddress(), 0), 4);
        assertEquals(first, client.system().localAddress(elsewhere).getPort());
        int[] fds = new int[4];
        for (int i = 0; i < fds.length; i++) {
            fds[i] = server.system().socket(any);
            server.system().bindAndListen(fds[i], any, 4);
        }
        assertEquals(List.of(first, first + 2, first + 3, first + 4),
                java.util.Arrays.stream(fds).map(fd -> server.system().localAddress(fd).getPort()).boxed().toList());
        server.system().close(fds[2]);
        server.system().close(fds[0]);
        int again = server.system().socket(any);
        server.system().bindAndListen(again, any, 4);
        assertEquals(first, server.system().localAddress(again).getPort());
        int next = server.system().socket(any);
        server.system().bindAndListen(next, any, 4);
        assertEquals(first + 3, server.system().localAddress(next).getPort());
    }

    @Test
    void closingAnFdDuringAReceiveKeepsTheSocketUntilTheReceiveCompletes() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        Receive pending = recv(serverRing, connection.serverFd(), 64);
        harness.pump();
        server.system().close(connection.serverFd());
        harness.await(send(clientRing, connection.clientFd(), "late"));
        assertEquals("late", received(pending), "the request holds the socket open");
        assertEquals(0, harness.await(recv(clientRing, connection.clientFd(), 8).userData()).result(),
                "the socket closes once the request completes: the client reads end of stream");
    }

    // A ring keeps each waiting receive's or accept's time and works it out again only when its socket says it
    // changed: the cases below are where that bookkeeping has edges.

    @Test
    void receivesOnTwoSocketsEachWaitForTheirOwnData() {
        Harness.Connection first = harness.connect(server, serverRing, client, clientRing, 7000);
        Harness.Connection second = harness.connect(server, serverRing, client, clientRing, 7001);
        Receive onFirst = recv(serverRing, first.serverFd(), 64);
        Receive onSecond = recv(serverRing, second.serverFd(), 64);
        harness.pump();
        assertEquals(Long.MAX_VALUE, serverRing.nextEventNanos(), "no data sent: neither receive is due");

        // Both sockets change before the server's ring is asked again: the second first, then the first.
        long sentAt = harness.clock.nowNanos();
        harness.await(send(clientRing, second.clientFd(), "two"));
        harness.clock.advanceBy(LATENCY / 2);
        harness.await(send(clientRing, first.clientFd(), "one"));
        assertEquals(sentAt + LATENCY, serverRing.nextEventNanos(), "the second socket's data arrives first");

        harness.clock.advanceTo(sentAt + LATENCY);
        List<Harness.Completion> delivered = harness.pump();
        assertEquals(List.of(onSecond.userData()), delivered.stream().map(Harness.Completion::userData).toList());
        assertEquals(sentAt + LATENCY + LATENCY / 2, serverRing.nextEventNanos(), "the first waits for its own");
        assertEquals("two", received(onSecond));
        assertEquals("one", received(onFirst));
        assertEquals(sentAt + LATENCY + LATENCY / 2, harness.clock.nowNanos());
        assertEquals(Long.MAX_VALUE, serverRing.nextEventNanos());
    }

    @Test
    void aCancelledReceiveNoLongerWaitsForItsSocket() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        Receive cancelled = recv(serverRing, connection.serverFd(), 64);
        harness.pump();
        Harness.stage(serverRing, Submissions.cancel(cancelled.userData(), 500));
        assertEquals(-Errno.ECANCELED, harness.await(cancelled.userData()).result());
        assertEquals(0, harness.await(500).result());

        long sentAt = harness.clock.nowNanos();
        harness.await(send(clientRing, connection.clientFd(), "kept"));
        assertEquals(Long.MAX_VALUE, serverRing.nextEventNanos(), "data for nobody is no event of the ring");
        harness.clock.advanceBy(2 * LATENCY);
        assertTrue(harness.pump().isEmpty());
        assertEquals("kept", received(recv(serverRing, connection.serverFd(), 64)), "the data stays for the next");
        assertEquals(sentAt + 2 * LATENCY, harness.clock.nowNanos(), "already there: delivered at once");
    }

    @Test
    void aCancelledReceiveLeavesTheOtherWaitOnItsSocket() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        Receive cancelled = recv(serverRing, connection.serverFd(), 64);
        Receive waiting = recv(serverRing, connection.serverFd(), 64);
        harness.pump();
        Harness.stage(serverRing, Submissions.cancel(cancelled.userData(), 500));
        long sentAt = harness.clock.nowNanos();
        harness.await(send(clientRing, connection.clientFd(), "only"));
        assertEquals(-Errno.ECANCELED, harness.await(cancelled.userData()).result());
        assertEquals(sentAt + LATENCY, serverRing.nextEventNanos());
        assertEquals("only", received(waiting));
        assertEquals(sentAt + LATENCY, harness.clock.nowNanos());
    }

    @Test
    void twoReceivesOnOneSocketTakeTheDataInTurn() {
        Harness.Connection connection = harness.connect(server, serverRing, client, clientRing, 7000);
        Receive a = recv(serverRing, connection.serverFd(), 64);
        Receive b = recv(serverRing, connection.serverFd(), 64);
        harness.pump();
        long sentAt = harness.clock.nowNanos();
        harness.await(send(clientRing, connection.clientFd(), "first"));
        harness.clock.advanceTo(sentAt + LATENCY);
        List<Harness.Completion> delivered = harness.pump();
        assertEquals(1, delivered.size(), "both were due; one took all the data, the other keeps waiting");
        Receive taker = delivered.getFirst().userData() == a.userData() ? a : b;
        Receive other = taker == a ? b : a;
        assertEquals("first", received(taker));
        assertEquals(Long.MAX_VALUE, serverRing.nextEventNanos(), "the other waits for more data");
        harness.await(send(clientRing, connection.clientFd(), "second"));
        assertEquals(sentAt + 2 * LATENCY, serverRing.nextEventNanos());
        assertEquals("second", received(other));
    }

    @Test
    void aWaitingReceiveIsDueWhenItsConnectionIsReset() {
        Harness.Connection quiet = harness.connect(server, serverRing, client, clientRing, 7000);
        Harness.Connection reset = harness.connect(server, serverRing, client, clientRing, 7001);
        Receive stays = recv(serverRing, quiet.serverFd(), 64);
        Receive fails = recv(serverRing, reset.serverFd(), 64);
        harness.pump();
        InetSocketAddress clientAddress = client.system().localAddress(reset.clientFd());
        long now = harness.clock.nowNanos(); // after the call above, which takes simulated time
        assertTrue(harness.network.breakConnection(clientAddress, new InetSocketAddress(server.hostAddress(), 7001)));
        assertEquals(now, serverRing.nextEventNanos(), "a reset is due at once");
        assertEquals(-Errno.ECONNRESET, harness.await(fails.userData()).result());
        assertEquals(Long.MAX_VALUE, serverRing.nextEventNanos(), "the other connection is untouched");
        harness.await(send(clientRing, quiet.clientFd(), "fine"));
        assertEquals("fine", received(stays));
    }

    @Test
    void aWaitingAcceptIsDueWhenAConnectionArrives() {
        InetSocketAddress address = new InetSocketAddress(server.hostAddress(), 7000);
        int listener = server.system().socket(address);
        server.system().bindAndListen(listener, address, 4);
        Harness.stage(serverRing, Submissions.accept(listener, 600));
        harness.pump();
        assertEquals(Long.MAX_VALUE, serverRing.nextEventNanos(), "nobody connects yet");
        int fd = client.system().socket(address);
        MemorySegment sockaddr = client.system().sockaddr(clientRing, address);
        long connectAt = harness.clock.nowNanos();
        Harness.stage(clientRing, Submissions.connect(fd, sockaddr, 601));
        harness.pump();
        assertEquals(connectAt + LATENCY, serverRing.nextEventNanos(), "the connection reaches the listener");
        assertTrue(harness.await(600).result() >= 0);
        assertEquals(connectAt + LATENCY, harness.clock.nowNanos());
        assertEquals(0, harness.await(601).result());
        clientRing.free(sockaddr);
    }
}
