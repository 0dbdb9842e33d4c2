package dev.lockstep.sim.os;

import dev.lockstep.sim.LinkProfile;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The topology of a {@link SimNetwork}: the delay profile of every link (a direction between two host addresses)
 * and the directions a partition blocks. Keys are {@code "from>to"} in sorted maps, so every walk is in a fixed
 * order. What a partition or a heal does to the segments of connections is {@link SimNetwork}'s. Not
 * thread-safe.
 */
final class NetworkTopology {
    private final TreeMap<String, LinkProfile> links = new TreeMap<>();
    /** Blocked directions, as {@code "from>to"}. */
    private final TreeSet<String> blocked = new TreeSet<>();

    static String ip(InetAddress address) {
        return address.getHostAddress();
    }

    static String direction(String from, String to) {
        return from + ">" + to;
    }

    void setLink(String direction, LinkProfile profile) {
        links.put(direction, Objects.requireNonNull(profile, "profile"));
    }

    LinkProfile link(String direction, LinkProfile defaultLink) {
        return links.getOrDefault(direction, defaultLink);
    }

    /** Blocks a direction; false if it was blocked already. */
    boolean block(String direction) {
        return blocked.add(direction);
    }

    /** Unblocks a direction; false if it was not blocked. */
    boolean unblock(String direction) {
        return blocked.remove(direction);
    }

    boolean isBlocked(String direction) {
        return blocked.contains(direction);
    }

    /** The blocked directions, sorted. */
    List<String> blockedDirections() {
        return List.copyOf(blocked);
    }

    /** One delivery delay over a link, jitter included: never negative. */
    long delay(String fromIp, String toIp, LinkProfile defaultLink, Generator generator) {
        return delay(direction(fromIp, toIp), defaultLink, generator);
    }

    /** {@link #delay(String, String, LinkProfile, Generator)} over a {@link #direction} worked out already. */
    long delay(String direction, LinkProfile defaultLink, Generator generator) {
        LinkProfile profile = links.getOrDefault(direction, defaultLink);
        long jitter = generator.nextLongBetween(Site.NETWORK_JITTER, -profile.jitterNanos(), profile.jitterNanos());
        return Math.max(0, profile.latencyNanos() + jitter);
    }

    @Override
    public String toString() {
        return blocked.toString();
    }
}
