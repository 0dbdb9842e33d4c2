package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * {@code setSocketOptions} reaches the kernel: read back with {@code getsockopt}, keep-alive is on and the buffer
 * sizes are what Linux makes of the request (doubled for its bookkeeping), below the system's defaults, so the
 * flow control the conformance suite observes comes from them.
 */
class UringSocketOptionsTest {
    private static final int SOL_SOCKET = 1;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;
    private static final int SO_KEEPALIVE = 9;
    private static final MethodHandle GETSOCKOPT = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("getsockopt").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));

    private static int option(int fd, int option) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, 4);
            assertEquals(0, (int) GETSOCKOPT.invokeExact(fd, SOL_SOCKET, option, value, length));
            return value.get(ValueLayout.JAVA_INT, 0);
        }
    }

    @Test
    void theOptionsSetAreTheOptionsTheKernelHolds() throws Throwable {
        LinuxSystemCalls system = LinuxSystemCalls.instance();
        int fresh = system.socket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        int fd = system.socket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try {
            int defaultSend = option(fresh, SO_SNDBUF);
            int defaultReceive = option(fresh, SO_RCVBUF);
            assertEquals(0, option(fresh, SO_KEEPALIVE));
            system.setSocketOptions(fd, true, 4096, 4096);
            assertEquals(1, option(fd, SO_KEEPALIVE));
            int send = option(fd, SO_SNDBUF);
            int receive = option(fd, SO_RCVBUF);
            assertTrue(send >= 4096 && send < defaultSend, "SO_SNDBUF " + send + ", default " + defaultSend);
            assertTrue(receive >= 4096 && receive < defaultReceive,
                    "SO_RCVBUF " + receive + ", default " + defaultReceive);
        } finally {
            system.close(fresh);
            system.close(fd);
        }
    }
}
