package dev.lockstep.demo.raft;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.NetworkException;
import dev.lockstep.demo.raft.Messages.AppendEntries;
import dev.lockstep.demo.raft.Messages.Message;
import dev.lockstep.demo.raft.Messages.RequestVote;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * How requests reach a {@link RaftNode} and its answers leave: the accept loop, one task per connection (a peer's
 * or a client's) answering its requests one at a time, and the two fault points that play a slow or lossy network
 * at the level of messages, {@code raft.append-handled-late} and {@code raft.drop-peer-reply}. What a request
 * decides is the node's ({@link RaftNode#answer}); this class only carries it.
 */
final class RequestServer {
    private final RaftNode node;
    private final RaftConfig config;

    RequestServer(RaftNode node, RaftConfig config) {
        this.node = node;
        this.config = config;
    }

    /** Accepts connections until the node is stopped, each served by a task of its own. */
    Void serve(Context ctx, Listener listener) {
        // Connections accepted and not yet closed by their task: one accepted as the node is stopped gets a task
        // that never runs, so serving closes what is left when it ends. A monitor, held for a few field writes and
        // never across a wait, in accept order so that the closes at the end replay in the same order.
        Set<Connection> open = Collections.synchronizedSet(new LinkedHashSet<>());
        try {
            while (true) {
                Connection connection = listener.accept().await();
                open.add(connection);
                ctx.child("conn").spawn(c -> {
                    try {
                        return handle(c, connection);
                    } finally {
                        open.remove(connection);
                    }
                });
            }
        } finally {
            List<Connection> left;
            synchronized (open) {
                left = new ArrayList<>(open);
            }
            for (Connection connection : left) {
                connection.close();
            }
        }
    }

    /** Answers the requests of one connection, one at a time, until the other side closes it. */
    private Void handle(Context ctx, Connection connection) {
        try (connection) {
            while (true) {
                Message request = Messages.receive(connection);
                if (request instanceof AppendEntries && node.rarePath(RarePaths.APPEND_HANDLED_LATE)) {
                    // Legal: a slow node. The leader gives up on this request, dials again and sends a newer one,
                    // which may be handled before this one.
                    ctx.sleep(config.rpcTimeout().multipliedBy(2));
                }
                Message reply = node.answer(ctx, request);
                boolean peerRequest = request instanceof RequestVote || request instanceof AppendEntries;
                if (peerRequest && node.rarePath(RarePaths.DROP_PEER_REPLY)) {
                    // Legal: as if the network lost the answer. The asker times out, dials again and retries,
                    // while what this request changed here stays.
                    node.answered(ctx);
                    return null;
                }
                Messages.send(connection, reply);
                node.answered(ctx);
            }
        } catch (NetworkException | MalformedMessageException goneOrNonsense) {
            return null;                                        // the connection is closed; nothing else changes
        }
    }
}
