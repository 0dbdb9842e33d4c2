package dev.lockstep.demo.raft;

import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.NetworkException;
import dev.lockstep.Operation;
import dev.lockstep.Task;
import dev.lockstep.TimeoutException;
import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.demo.raft.Messages.AppendEntries;
import dev.lockstep.demo.raft.Messages.AppendReply;
import dev.lockstep.demo.raft.Messages.ClientAppend;
import dev.lockstep.demo.raft.Messages.ClientCommitIndex;
import dev.lockstep.demo.raft.Messages.ClientRead;
import dev.lockstep.demo.raft.Messages.ClientReply;
import dev.lockstep.demo.raft.Messages.Message;
import dev.lockstep.demo.raft.Messages.RequestVote;
import dev.lockstep.demo.raft.Messages.Status;
import dev.lockstep.demo.raft.Messages.VoteReply;
import dev.lockstep.sync.Lease;
import dev.lockstep.sync.Mutex;
import java.time.Duration;
import java.util.List;

/**
 * One Raft node (Ongaro and Ousterhout, "In Search of an Understandable Consensus Algorithm", 2014), written against
 * {@code dev.lockstep} alone: leader election with randomized timeouts, log replication, commitment, persistence
 * and recovery. The same {@link #task} is a simulated cluster node and, through the demo's {@code RaftProcess}, a
 * process on runtime-uring.
 *
 * <h2>Tasks of a node</h2>
 * The main task recovers the {@link DurableState}, binds the node's address and accepts connections
 * ({@link RequestServer}: one task per connection, peers' requests and clients', each answered by {@link #answer}).
 * An election task starts an election when the election deadline passes without word from a leader. One task per
 * peer sends that peer, over a {@link PeerLink}, what the node's role calls for: RequestVote as a candidate,
 * AppendEntries (entries, or an empty heartbeat) as a leader, nothing as a follower.
 *
 * <h2>One lock</h2>
 * Every field below (and the {@link FollowerProgress}, {@link Ballot} and {@link DurableState} it holds) is guarded
 * by {@link #lock}, a {@code dev.lockstep.sync.Mutex}: a task takes it, decides, writes and syncs what it decided,
 * and lets go; the answer that depends on the decision is sent after the sync, so nothing is promised that a crash
 * could take back. Network waits happen outside the lock. A task waiting for the state to change (a client's
 * command to commit, a peer task with nothing to send) waits through {@link Changes}, which loses no wake-up.
 *
 * <h2>Fault points</h2>
 * Rare but legal paths a simulated run may take, to widen what a search reaches: {@link RarePaths} names and
 * explains each. When what a peer's request changed is synced is {@link PeerSyncs}'s.
 */
public final class RaftNode implements RaftView {
    /**
     * The most entries a leader sends in one AppendEntries. Small, as in production configurations that bound a
     * message: a follower far behind then catches up over several messages, and the code paths that only a partial
     * catch-up takes (a commit index bounded by the last entry sent) are exercised.
     */
    static final int MAX_BATCH = 8;
    private final RaftConfig config;
    private final RaftObserver observer;
    private final RarePaths rarePaths;
    private final InjectedBug bug;
    private final int self;
    private final Mutex lock = new Mutex();

    private DurableState state;
    private PeerSyncs peerSyncs;
    private ElectionTimeouts timeouts;
    private Role role = Role.FOLLOWER;
    private int leaderHint;
    private long commitIndex;
    private long lastApplied;
    /** When this node, not leading, starts an election: {@code Clock.monotonicNanos}, which clock steps do not move. */
    private long electionDeadlineNanos;
    private final Changes changes = new Changes();
    /** As a candidate: the votes of this term. */
    private final Ballot ballot;
    /** As a leader: what each follower holds, and which read rounds it confirmed. */
    private final FollowerProgress progress;

    private RaftNode(RaftConfig config, RaftObserver observer) {
        this.config = config;
        this.observer = observer;
        this.rarePaths = new RarePaths(observer);
        this.bug = config.bug();
        this.self = config.self();
        int members = config.members().size();
        this.ballot = new Ballot(members, self);
        this.progress = new FollowerProgress(members, self);
    }

    /**
     * A node's main task: recovers, then serves until aborted (or, as a process, killed).
     *
     * @param config the node's configuration
     * @param observer told what the node decides; {@link RaftObserver#NONE} in production
     * @return the task
     */
    public static Task<Void> task(RaftConfig config, RaftObserver observer) {
        return ctx -> new RaftNode(config, observer).run(ctx);
    }

    private Void run(Context ctx) {
        try (DurableState recovered = DurableState.open(ctx, bug);
             Listener listener = ctx.bind(config.members().get(self - 1)).await()) {
            state = recovered;
            peerSyncs = new PeerSyncs(recovered, bug, rarePaths);
            timeouts = ElectionTimeouts.forLifetime(ctx, config);
            electionDeadlineNanos = ctx.monotonicNanos() + timeouts.next().toNanos();
            observer.started(this, recovered.recovery());
            ctx.child("election").spawn(this::electionTimer);
            for (int peer = 1; peer <= config.members().size(); peer++) {
                if (peer != self) {
                    int id = peer;
                    ctx.child("peer" + id).spawn(c -> talkTo(c, id));
                }
            }
            return new RequestServer(this, config).serve(ctx, listener);
        }
    }

    // ---------------------------------------------------------------- elections

    private Void electionTimer(Context ctx) {
        while (true) {
            Duration wait;
            try (Lease held = lock.lock().await()) {
                if (role != Role.LEADER && (ctx.monotonicNanos() - electionDeadlineNanos >= 0
                        || role == Role.FOLLOWER && rarePath(RarePaths.ELECTION_EARLY))) {
                    startElection(ctx);        // early: a timeout cut short, as a slow leader's follower may see
                }
                wait = role == Role.LEADER ? config.heartbeat()
                        : Duration.ofNanos(electionDeadlineNanos - ctx.monotonicNanos());
            }
            ctx.sleep(wait.isNegative() || wait.isZero() ? Duration.ofNanos(1000) : wait);
        }
    }

    /** Lock held. A new term, this node's own vote in it synced before any vote is asked for. */
    private void startElection(Context ctx) {
        state.saveTermAndVote(state.term() + 1, self);
        state.syncMeta();
        role = Role.CANDIDATE;
        leaderHint = 0;
        ballot.start();
        electionDeadlineNanos = ctx.monotonicNanos() + timeouts.next().toNanos();
        winIfMajority();
        changed();
    }

    private void winIfMajority() {
        if (role == Role.CANDIDATE && ballot.votes() >= config.majority()) {
            role = Role.LEADER;
            leaderHint = self;
            progress.reset(state.lastIndex());
            observer.becameLeader(self, state.term(), state.entries(1, (int) state.lastIndex()));
            advanceCommit();
        }
    }

    /**
     * Lock held. Seen a higher term: follow, the new term synced before anything is answered in it. The node steps
     * down before it writes, so that while the write and the sync are under way no view shows it leading a term it
     * never led.
     */
    private void adoptTerm(long term) {
        role = Role.FOLLOWER;
        state.saveTermAndVote(term, 0);
        state.syncMeta();
        changed();
    }

    private VoteReply onRequestVote(Context ctx, RequestVote request) {
        boolean metaWritten = false;
        if (request.term() > state.term() && role == Role.FOLLOWER && rarePath(RarePaths.CONTEST_ELECTION)) {
            return standInTerm(ctx, request.term());
        }
        if (request.term() > state.term()) {
            role = Role.FOLLOWER;                              // stepped down before the newer term is written
            state.saveTermAndVote(request.term(), 0);
            metaWritten = true;
            changed();
        }
        long lastTerm = state.termAt(state.lastIndex());
        boolean upToDate = request.lastLogTerm() > lastTerm
                || (request.lastLogTerm() == lastTerm && request.lastLogIndex() >= state.lastIndex());
        boolean grant = request.term() == state.term()
                && (state.votedFor() == 0 || state.votedFor() == request.candidate())
                && (upToDate || bug == InjectedBug.VOTE_WITHOUT_LOG_CHECK);
        if (grant) {
            if (state.votedFor() != request.candidate()) {
                observer.granting(self, request.candidate(), state.term());
                state.saveTermAndVote(state.term(), request.candidate());
                metaWritten = true;
            }
            electionDeadlineNanos = ctx.monotonicNanos() + timeouts.next().toNanos();
        }
        if (metaWritten) {
            peerSyncs.meta(ctx);
        }
        return new VoteReply(state.term(), grant);
    }

    /**
     * Lock held. Asked for its vote in a newer term, this node stands in that term itself: it votes for itself in
     * it (synced before it answers) and refuses the asker, so two candidates contest one term and the third node's
     * vote decides it. Legal: a node may vote once in a term, for anyone, itself included.
     */
    private VoteReply standInTerm(Context ctx, long term) {
        state.saveTermAndVote(term, self);
        state.syncMeta();
        role = Role.CANDIDATE;
        leaderHint = 0;
        ballot.start();
        electionDeadlineNanos = ctx.monotonicNanos() + timeouts.next().toNanos();
        winIfMajority();
        changed();
        return new VoteReply(state.term(), false);
    }

    // ---------------------------------------------------------------- replication

    private AppendReply onAppendEntries(Context ctx, AppendEntries request) {
        if (request.term() < state.term()) {
            return new AppendReply(state.term(), false, state.lastIndex());
        }
        if (request.term() > state.term()) {
            adoptTerm(request.term());
        }
        if (role != Role.FOLLOWER) {
            role = Role.FOLLOWER;      // a candidate of this term: someone else won it
            changed();
        }
        leaderHint = request.leader();
        electionDeadlineNanos = ctx.monotonicNanos() + timeouts.next().toNanos();
        long prev = request.prevLogIndex();
        if (prev < 0 || prev > state.lastIndex() || state.termAt(prev) != request.prevLogTerm()) {
            return new AppendReply(state.term(), false, state.lastIndex());
        }
        List<Entry> entries = request.entries();
        boolean written = false;
        for (int i = 0; i < entries.size(); i++) {
            long index = prev + 1 + i;
            if (index <= state.lastIndex()) {
                if (state.termAt(index) == entries.get(i).term()) {
                    continue;                                  // already there
                }
                state.truncateFrom(index);                     // a conflict: this entry and all after it go
            }
            state.append(entries.subList(i, entries.size()));
            written = true;
            break;
        }
        long lastNew = prev + entries.size();
        if (bug == InjectedBug.TRUNCATE_ON_STALE_APPEND && state.lastIndex() > lastNew) {
            state.truncateFrom(lastNew + 1);                   // the bug: what came after the message goes too
            written = true;
        }
        if (written) {
            peerSyncs.log(ctx);
        }
        long newCommit = Math.min(request.leaderCommit(),
                bug == InjectedBug.COMMIT_PAST_MATCH ? state.lastIndex() : lastNew);
        if (newCommit > commitIndex && !rarePath(RarePaths.FOLLOWER_COMMIT_LATE)) {
            commitIndex = newCommit;
            apply();
            changed();
        }
        return new AppendReply(state.term(), true, lastNew);
    }

    /**
     * The task that talks to one peer: as a candidate it asks for the peer's vote (once per term), as a leader it
     * sends the entries the peer lacks, or an empty AppendEntries when a heartbeat is due or a read waits for
     * confirmation; as a follower it waits. One request at a time, on one connection, dialed again after a failure.
     */
    private Void talkTo(Context ctx, int peer) {
        long lastSentNanos = 0;
        boolean sentYet = false;
        try (PeerLink link = new PeerLink(config.members().get(peer - 1), config.rpcTimeout())) {
            while (true) {
                Message request;
                long round;
                Operation<Void> change;
                Duration idle;
                try (Lease held = lock.lock().await()) {
                    round = progress.readRound();
                    request = null;
                    idle = config.heartbeat();
                    if (role == Role.CANDIDATE && !ballot.answered(peer, state.term())) {
                        request = new RequestVote(state.term(), self, state.lastIndex(),
                                state.termAt(state.lastIndex()));
                    } else if (role == Role.LEADER) {
                        Duration sinceSent = !sentYet ? config.heartbeat()
                                : Duration.ofNanos(ctx.monotonicNanos() - lastSentNanos);
                        long next = progress.nextIndex(peer);
                        if (next <= state.lastIndex() || progress.unconfirmed(peer, round)
                                || sinceSent.compareTo(config.heartbeat()) >= 0) {
                            long prev = next - 1;
                            if (prev > 0 && rarePath(RarePaths.APPEND_FROM_EARLIER)) {
                                prev = Math.max(0, prev - MAX_BATCH);  // legal: the follower skips what it has
                            }
                            int count = (int) Math.min(MAX_BATCH, state.lastIndex() - prev);
                            if (count > 1 && rarePath(RarePaths.APPEND_CUT_SHORT)) {
                                count = 1;          // legal: the rest goes in the next AppendEntries
                            }
                            request = new AppendEntries(state.term(), self, prev, state.termAt(prev), commitIndex,
                                    state.entries(prev + 1, count));
                        } else {
                            idle = config.heartbeat().minus(sinceSent);
                        }
                    }
                    change = request == null ? changes.next() : null;
                }
                if (request == null) {
                    Changes.await(ctx, change, idle);
                    continue;
                }
                Message reply;
                try {
                    link.open(ctx);
                    lastSentNanos = ctx.monotonicNanos();
                    sentYet = true;
                    reply = link.call(ctx, request);
                } catch (NetworkException | TimeoutException | MalformedMessageException failed) {
                    ctx.sleep(config.heartbeat());      // down, cut off or slow: try again in a while
                    continue;
                }
                try (Lease held = lock.lock().await()) {
                    onReply(peer, request, round, reply);
                }
            }
        }
    }

    /** Lock held. */
    private void onReply(int peer, Message request, long round, Message reply) {
        switch (reply) {
            case VoteReply vote when request instanceof RequestVote asked -> {
                if (vote.term() > state.term()) {
                    adoptTerm(vote.term());
                } else if (role == Role.CANDIDATE && asked.term() == state.term()) {
                    ballot.answer(peer, asked.term(), vote.granted());
                    winIfMajority();
                    changed();
                }
            }
            case AppendReply answer when request instanceof AppendEntries sent -> {
                if (answer.term() > state.term()) {
                    adoptTerm(answer.term());
                    return;
                }
                if (role != Role.LEADER || sent.term() != state.term()) {
                    return;                                     // an answer to another term's leader
                }
                progress.answered(peer, round);
                if (answer.success()) {
                    progress.matched(peer, answer.index());
                    advanceCommit();
                } else {
                    progress.refused(peer, sent.prevLogIndex(), answer.index());
                }
                changed();
            }
            default -> {
                // A reply that does not answer the request: the peer is not speaking the protocol; ignored.
            }
        }
    }

    /**
     * Lock held, as a leader. The commit index moves to the highest entry a majority holds, provided that entry is
     * of this term: an earlier term's entry on a majority can still be overwritten (the Raft paper's Figure 8), and
     * is committed only by a later entry of this term.
     */
    private void advanceCommit() {
        long majorityHolds = progress.majorityHolds(state.lastIndex(), config.majority());
        if (majorityHolds > commitIndex && !rarePath(RarePaths.LEADER_COMMIT_LATE)
                && (bug == InjectedBug.FIGURE_8 || state.termAt(majorityHolds) == state.term())) {
            for (long index = commitIndex + 1; index <= majorityHolds; index++) {
                observer.committed(self, state.term(), index, state.entry(index));
            }
            commitIndex = majorityHolds;
            apply();
            changed();
        }
    }

    /** A fault point of this node ({@link RarePaths}): reached only while the harness injects faults. */
    boolean rarePath(String name) {
        return rarePaths.take(name);
    }

    /** Lock held. The state machine is the observer's: entries are handed to it in order. */
    private void apply() {
        while (lastApplied < commitIndex) {
            lastApplied++;
            observer.applied(self, lastApplied, state.entry(lastApplied));
        }
    }

    // ---------------------------------------------------------------- clients

    private ClientReply onClientAppend(Context ctx, ClientAppend request) {
        long index;
        long term;
        try (Lease held = lock.lock().await()) {
            if (role != Role.LEADER) {
                return new ClientReply(Status.NOT_LEADER, 0, leaderHint);
            }
            term = state.term();
            state.append(List.of(new Entry(term, request.command())));
            state.syncLog();
            index = state.lastIndex();
            advanceCommit();                                   // a cluster of one commits at once
            changed();
        }
        if (bug == InjectedBug.ACK_BEFORE_COMMIT) {
            return new ClientReply(Status.OK, index, self);     // the bug: in one log only
        }
        long deadlineNanos = ctx.monotonicNanos() + config.electionTimeoutMax().multipliedBy(2).toNanos();
        while (true) {
            Operation<Void> change;
            try (Lease held = lock.lock().await()) {
                if (commitIndex >= index && state.lastIndex() >= index && state.termAt(index) == term) {
                    return new ClientReply(Status.OK, index, self);
                }
                if (state.term() != term || role != Role.LEADER) {
                    return new ClientReply(Status.UNKNOWN, index, leaderHint);
                }
                change = changes.next();
            }
            Duration left = Duration.ofNanos(deadlineNanos - ctx.monotonicNanos());
            if (left.isNegative() || left.isZero()) {
                return new ClientReply(Status.UNKNOWN, index, self);
            }
            Changes.await(ctx, change, left);
        }
    }

    private ClientReply onClientRead(ClientRead request) {
        try (Lease held = lock.lock().await()) {
            if (request.index() >= 1 && request.index() <= commitIndex) {
                return new ClientReply(Status.OK, state.entry(request.index()).command(), leaderHint);
            }
            return new ClientReply(role == Role.LEADER ? Status.NOT_COMMITTED : Status.NOT_LEADER, 0, leaderHint);
        }
    }

    /**
     * The commit index as a linearizable read (the Raft paper, section 8): the leader notes its commit index, then
     * confirms it still leads by hearing from a majority in a round of AppendEntries sent after the read arrived.
     * A leader that has not committed an entry of its own term yet does not know the latest commit index: it
     * answers {@link Status#NOT_COMMITTED} and the client asks again.
     */
    private ClientReply onReadIndex(Context ctx) {
        long readIndex;
        long round;
        long term;
        try (Lease held = lock.lock().await()) {
            if (role != Role.LEADER) {
                return new ClientReply(Status.NOT_LEADER, 0, leaderHint);
            }
            if (commitIndex == 0 || state.termAt(commitIndex) != state.term()) {
                return new ClientReply(Status.NOT_COMMITTED, 0, self);
            }
            if (bug == InjectedBug.READ_WITHOUT_QUORUM) {
                return new ClientReply(Status.OK, commitIndex, self);   // the bug: maybe no longer the leader
            }
            readIndex = commitIndex;
            term = state.term();
            round = progress.newReadRound();
            changed();
        }
        long deadlineNanos = ctx.monotonicNanos() + config.rpcTimeout().multipliedBy(2).toNanos();
        while (true) {
            Operation<Void> change;
            try (Lease held = lock.lock().await()) {
                if (state.term() != term || role != Role.LEADER) {
                    return new ClientReply(Status.NOT_LEADER, 0, leaderHint);
                }
                if (progress.confirmations(round) >= config.majority()) {
                    return new ClientReply(Status.OK, readIndex, self);
                }
                change = changes.next();
            }
            Duration left = Duration.ofNanos(deadlineNanos - ctx.monotonicNanos());
            if (left.isNegative() || left.isZero()) {
                return new ClientReply(Status.UNKNOWN, 0, self);
            }
            Changes.await(ctx, change, left);
        }
    }

    // ---------------------------------------------------------------- answering requests

    /**
     * What the node answers {@code request}, decided (and what it changed synced, unless a bug puts that off) before
     * it returns; {@link RequestServer} sends it.
     *
     * @throws MalformedMessageException if {@code request} is a reply
     */
    Message answer(Context ctx, Message request) {
        return switch (request) {
            case RequestVote vote -> {
                try (Lease held = lock.lock().await()) {
                    yield onRequestVote(ctx, vote);
                }
            }
            case AppendEntries append -> {
                try (Lease held = lock.lock().await()) {
                    yield onAppendEntries(ctx, append);
                }
            }
            case ClientAppend append -> onClientAppend(ctx, append);
            case ClientRead read -> onClientRead(read);
            case ClientCommitIndex read -> onReadIndex(ctx);
            default -> throw new MalformedMessageException("a " + request.getClass().getSimpleName()
                    + " is a reply, not a request");
        };
    }

    /** The answer to a request was sent (or dropped): what an injected bug put off is done now. */
    void answered(Context ctx) {
        if (bug != InjectedBug.NONE) {
            try (Lease held = lock.lock().await()) {
                peerSyncs.payOwed(ctx);
            }
        }
    }

    /** Lock held: wakes every task waiting for a change. */
    private void changed() {
        changes.signal();
    }

    // ---------------------------------------------------------------- the view

    @Override
    public int id() {
        return self;
    }

    @Override
    public Role role() {
        return role;
    }

    @Override
    public long term() {
        return state.term();
    }

    @Override
    public int votedFor() {
        return state.votedFor();
    }

    @Override
    public long commitIndex() {
        return commitIndex;
    }

    @Override
    public List<Entry> log() {
        return state.entries(1, (int) state.lastIndex());
    }
}
