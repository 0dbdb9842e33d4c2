package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many more idle connections than ring entries, on io_uring: a server on two workers with rings of 8 entries
 * accepts 256 connections from plain-thread clients, each connection's receive waiting in the kernel; then every
 * client speaks at once, so far more receives complete together than a completion queue of 16 holds, and then every
 * client hangs up, so as many receives end at once again.
 *
 * <p>What a user relies on: a worker never stops accepting or receiving because other connections are idle; every
 * message is answered with its own bytes however many complete in one turn (completions past the completion
 * queue wait in the kernel's backlog and are all delivered); every session sees its peer's end; and no fd is left
 * behind.
 */
@Timeout(60)
class UringIdleConnectionsTest {
    private static final int CONNECTIONS = 256;

    @Test
    void twoHundredFiftySixIdleConnectionsOnRingsOfEightAreAllAcceptedAnsweredAndEnded() throws Exception {
        int fdsBefore = OpenDescriptors.fdCount();
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<Integer> served = new CompletableFuture<>();
        Thread server = Thread.ofPlatform().name("idle-connections-server").start(() -> {
            try {
                served.complete(UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
                    try (Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                            .await()) {
                        bound.complete(listener.localAddress());
                        List<Handle<Integer>> sessions = new ArrayList<>();
                        for (int i = 0; i < CONNECTIONS; i++) {
                            Connection connection = listener.accept().await();
                            // Every connection on the worker the accept ran on: 256 waits on one ring of 8.
                            sessions.add(ctx.child("session" + i).spawnOn(0, s -> echoUntilEnd(connection)));
                        }
                        int echoed = 0;
                        for (Handle<Integer> session : sessions) {
                            echoed += session.await();
                        }
                        return echoed;
                    }
                }));
            } catch (Throwable failure) {
                bound.completeExceptionally(failure);
                served.completeExceptionally(failure);
            }
        });
        InetSocketAddress address = bound.get(30, TimeUnit.SECONDS);
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket client = new Socket();
                client.connect(address, 10_000);
                client.setSoTimeout(20_000);
                clients.add(client);
            }
            // Every client speaks before any reads: the receives complete together.
            for (int i = 0; i < CONNECTIONS; i++) {
                clients.get(i).getOutputStream().write(message(i));
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                assertArrayEquals(message(i), clients.get(i).getInputStream().readNBytes(4), "client " + i);
            }
        } finally {
            for (Socket client : clients) {
                client.close();
            }
        }
        assertEquals(CONNECTIONS, served.get(30, TimeUnit.SECONDS), "every session echoed once and saw its end");
        server.join(10_000);
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "fds leaked: " + OpenDescriptors.fds());
    }

    private static byte[] message(int client) {
        return new byte[] {'m', (byte) (client >>> 8), (byte) client, '!'};
    }

    /** Echoes 4-byte messages until the peer hangs up; returns how many it echoed. */
    private static int echoUntilEnd(Connection connection) {
        int echoed = 0;
        try (connection) {
            while (true) {
                byte[] message = connection.stream().recv(4).await();
                connection.sink().send(message).await();
                echoed++;
            }
        } catch (RecvFailedException | SendFailedException | ClosedException ended) {
            return echoed;
        }
    }
}
