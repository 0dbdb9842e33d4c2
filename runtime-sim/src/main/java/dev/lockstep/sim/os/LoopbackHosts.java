package dev.lockstep.sim.os;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The loopback addresses of a {@link SimKernel} whose workers are hosts of their own: worker {@code i} is
 * {@code 127.0.0.(i+1)}, and an IPv6 socket is on {@code ::1}. Stateless.
 */
final class LoopbackHosts {
    /** {@code ::1}. */
    static final InetAddress IPV6_LOOPBACK = address(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});

    private LoopbackHosts() {
    }

    /** See {@link SimKernel#workerHost(int)}. */
    static InetAddress workerHost(int index) {
        if (index < 0 || index >= 65_535) {
            throw new IllegalArgumentException("worker index must be in [0, 65535), was " + index);
        }
        int host = index + 1;
        return address(new byte[] {127, 0, (byte) (host >>> 8), (byte) host});
    }

    private static InetAddress address(byte[] raw) {
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException impossibleForRawBytes) {
            throw new IllegalStateException(impossibleForRawBytes);
        }
    }
}
