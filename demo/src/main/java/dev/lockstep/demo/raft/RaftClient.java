package dev.lockstep.demo.raft;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.NetworkException;
import dev.lockstep.Search;
import dev.lockstep.TimeoutException;
import dev.lockstep.demo.raft.Messages.ClientAppend;
import dev.lockstep.demo.raft.Messages.ClientCommitIndex;
import dev.lockstep.demo.raft.Messages.ClientRead;
import dev.lockstep.demo.raft.Messages.ClientReply;
import dev.lockstep.demo.raft.Messages.Message;
import dev.lockstep.demo.raft.Messages.Status;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * A client of a Raft cluster: append a command, read a committed one, read the commit index linearizably. It
 * remembers which node last answered as leader and follows the nodes' hints. It keeps one connection, to the node it
 * asked last, and closes it after any failure (a late answer must never be taken for the next request's), so
 * {@link #close} it when done.
 *
 * <p>In the simulator a call may begin at another node than the one it believes leads (the fault point
 * {@code raft.client-ask-another}): a node that is not the leader says so and the call follows its hint, while a
 * node that wrongly believes it leads (cut off from the others) is asked as a real client sometimes would.
 *
 * <p>Not thread-safe: one task uses a client at a time. Every call waits at most {@code requestTimeout} per node
 * it tries and tries {@code 3 * members} times; bound it further with {@code ctx.timeout}.
 */
public final class RaftClient implements AutoCloseable {
    private final List<InetSocketAddress> members;
    private final Duration requestTimeout;
    private final Duration retryPause;
    private int leaderGuess = 1;
    /** Open to node {@link #connectedTo}, or null. */
    private Connection connection;
    private int connectedTo;

    /**
     * @param members every node's address, node {@code i} at {@code members.get(i - 1)}
     * @param requestTimeout how long one request to one node may take
     * @param retryPause how long to wait before asking again when no node knows a leader
     * @throws IllegalArgumentException naming a bad value
     */
    public RaftClient(List<InetSocketAddress> members, Duration requestTimeout, Duration retryPause) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a Raft client needs at least one member");
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero() || retryPause.isNegative()) {
            throw new IllegalArgumentException("requestTimeout must be positive and retryPause not negative, were "
                    + requestTimeout + " and " + retryPause);
        }
        this.members = List.copyOf(members);
        this.requestTimeout = requestTimeout;
        this.retryPause = retryPause;
    }

    /**
     * Appends a command and waits until it is committed: from then on it is in the log at the returned index on
     * every future leader, whatever crashes.
     *
     * @param ctx the calling task's context
     * @param command the command
     * @return its index in the log
     * @throws RaftUnavailableException if no leader took it, or its outcome is unknown (taken, then leadership or
     *     the connection was lost before it committed: it may commit later). Not retried then, so that a command
     *     is appended at most once by this call.
     */
    public long append(Context ctx, long command) {
        return call(ctx, new ClientAppend(command), false).value();
    }

    /**
     * The command at {@code index}, if that entry is committed on the node asked (committed entries never change,
     * so any node that knows it committed may answer).
     *
     * @param ctx the calling task's context
     * @param index the index, from 1
     * @return the command, or empty if the leader does not know the entry committed
     * @throws RaftUnavailableException if no node answered
     */
    public OptionalLong read(Context ctx, long index) {
        ClientReply reply = call(ctx, new ClientRead(index), true);
        return reply.status() == Status.OK ? OptionalLong.of(reply.value()) : OptionalLong.empty();
    }

    /**
     * The commit index, linearizably: at least the index of every command whose {@link #append} returned before
     * this call began.
     *
     * @param ctx the calling task's context
     * @return the commit index
     * @throws RaftUnavailableException if no leader confirmed one
     */
    public long commitIndex(Context ctx) {
        return call(ctx, new ClientCommitIndex(), true).value();
    }

    private ClientReply call(Context ctx, Message request, boolean idempotent) {
        int tries = 3 * members.size();
        for (int attempt = 0; attempt < tries; attempt++) {
            if (attempt == 0 && members.size() > 1 && Search.faultPoint("raft.client-ask-another")) {
                leaderGuess = leaderGuess % members.size() + 1;   // legal: a client may ask any node first
            }
            int node = leaderGuess;
            InetSocketAddress address = members.get(node - 1);
            boolean[] sent = {false};
            ClientReply reply;
            boolean answered = false;
            try {
                if (connection == null || connectedTo != node) {
                    close();
                    connection = ctx.timeout(requestTimeout, () -> ctx.dial(address).await());
                    connectedTo = node;
                }
                Connection open = connection;
                reply = ctx.timeout(requestTimeout, () -> {
                    sent[0] = true;
                    Messages.send(open, request);
                    if (!(Messages.receive(open) instanceof ClientReply answer)) {
                        throw new MalformedMessageException("node " + node + " answered a client request with"
                                + " something other than a client reply");
                    }
                    return answer;
                });
                answered = true;
            } catch (NetworkException | TimeoutException | MalformedMessageException failed) {
                if (sent[0] && !idempotent) {
                    throw new RaftUnavailableException("node " + node + " took " + request + " and then "
                            + failed.getClass().getSimpleName() + ": its outcome is unknown");
                }
                leaderGuess = node % members.size() + 1;
                continue;
            } finally {
                if (!answered) {
                    close();            // whatever happened, a late answer on it must not meet the next request
                }
            }
            switch (reply.status()) {
                case OK, NOT_COMMITTED -> {
                    if (reply.status() == Status.OK || request instanceof ClientRead) {
                        leaderGuess = node;
                        return reply;
                    }
                    ctx.sleep(retryPause);          // a new leader, not yet sure of the commit index
                }
                case NOT_LEADER -> {
                    int hint = reply.leaderHint();
                    if (hint >= 1 && hint <= members.size() && hint != node) {
                        leaderGuess = hint;
                    } else {
                        leaderGuess = node % members.size() + 1;
                        ctx.sleep(retryPause);
                    }
                }
                case UNKNOWN -> {
                    if (!idempotent) {
                        throw new RaftUnavailableException("node " + node + " took " + request + " but lost its"
                                + " leadership before it committed: its outcome is unknown");
                    }
                    ctx.sleep(retryPause);
                }
            }
        }
        throw new RaftUnavailableException("no leader answered " + request + " in " + tries + " tries");
    }

    /**
     * The node that answered last as leader (or was last asked, before any answered).
     *
     * @return its id
     */
    public int leader() {
        return leaderGuess;
    }

    /** Closes the connection the client keeps, if any; the client may still be used (it dials again). */
    @Override
    public void close() {
        if (connection != null) {
            Connection closing = connection;
            connection = null;
            closing.close();
        }
    }
}
