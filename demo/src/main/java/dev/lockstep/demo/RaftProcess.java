package dev.lockstep.demo;

import dev.lockstep.demo.raft.RaftConfig;
import dev.lockstep.demo.raft.RaftNode;
import dev.lockstep.demo.raft.RaftObserver;
import dev.lockstep.uring.UringRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One Raft node ({@code dev.lockstep.demo.raft}) as a process on runtime-uring: {@code RaftProcess ID DATA-DIR HOST:PORT,HOST:PORT,...}, node
 * {@code ID} of the listed members (from 1), its log and vote in {@code DATA-DIR}. Runs until killed. Timing for a
 * real network and disk: heartbeat 50 ms, election timeouts 300 to 600 ms, requests given up after 200 ms.
 */
public final class RaftProcess {
    /** The production timing. */
    static final Duration HEARTBEAT = Duration.ofMillis(50);
    static final Duration ELECTION_MIN = Duration.ofMillis(300);
    static final Duration ELECTION_MAX = Duration.ofMillis(600);
    static final Duration RPC_TIMEOUT = Duration.ofMillis(200);

    private RaftProcess() {
    }

    /**
     * Runs one node.
     *
     * @param args the node's id, its data directory, every member's address
     * @throws IllegalArgumentException naming a bad argument
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: RaftProcess ID DATA-DIR HOST:PORT,HOST:PORT,...; got "
                    + args.length + " arguments");
        }
        int self;
        try {
            self = Integer.parseInt(args[0]);
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException("node id '" + args[0] + "' is not a number");
        }
        List<InetSocketAddress> members = parseMembers(args[2]);
        RaftConfig config = RaftConfig.of(self, members)
                .withTiming(HEARTBEAT, ELECTION_MIN, ELECTION_MAX, RPC_TIMEOUT);
        UringRunner.builder().workers(1).storage(Path.of(args[1])).build()
                .start(RaftNode.task(config, RaftObserver.NONE));
    }

    /**
     * Parses {@code HOST:PORT,HOST:PORT,...}.
     *
     * @param list the list
     * @return the addresses, in order
     * @throws IllegalArgumentException naming the bad element
     */
    static List<InetSocketAddress> parseMembers(String list) {
        List<InetSocketAddress> members = new ArrayList<>();
        for (String member : list.split(",")) {
            int colon = member.lastIndexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("member '" + member + "' is not HOST:PORT");
            }
            try {
                int port = Integer.parseInt(member.substring(colon + 1));
                members.add(new InetSocketAddress(InetAddress.getByName(member.substring(0, colon)), port));
            } catch (NumberFormatException | UnknownHostException bad) {
                throw new IllegalArgumentException("member '" + member + "' is not HOST:PORT: " + bad.getMessage());
            } catch (IllegalArgumentException badPort) {
                throw new IllegalArgumentException("member '" + member + "' has a bad port: " + badPort.getMessage());
            }
        }
        return members;
    }
}
