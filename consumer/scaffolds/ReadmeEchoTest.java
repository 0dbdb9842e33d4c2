import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.testing.SimulationTest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;

/** The README's echo loop of whole-buffer calls, serving one client until it hangs up, on both runtimes. */
class ReadmeEchoTest {
    @SimulationTest(seeds = 3, uring = true)
    void echoesSixtyFourByteMessagesUntilThePeerCloses(Context ctx) {
        try (Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await()) {
            Handle<Void> server = ctx.spawn(serverCtx -> {
                try (Connection connection = listener.accept().await();
                     IoBuffer buffer = serverCtx.buffers().allocate(64)) {
                    assertThrows(RecvFailedException.class, () -> echo(connection, buffer));
                }
                return null;
            });
            try (Connection client = ctx.dial(listener.localAddress()).await()) {
                for (byte round = 1; round <= 3; round++) {
                    byte[] message = new byte[64];
                    Arrays.fill(message, round);
                    client.sink().send(message).await();
                    assertArrayEquals(message, client.stream().recv(64).await());
                }
            }
            server.await();
        }
    }

    private static void echo(Connection connection, IoBuffer buffer) {
        // README: while (true) {
    }
}
