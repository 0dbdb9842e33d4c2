package dev.lockstep.demo;

import dev.lockstep.demo.raft.Entry;
import dev.lockstep.demo.raft.RaftObserver;
import dev.lockstep.demo.raft.RaftView;
import dev.lockstep.testing.ClusterNemesis;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * Checks Raft's safety properties (the Raft paper, Figure 3) as the nodes of one simulated run decide, through
 * {@link RaftObserver}:
 * <ul>
 *   <li><b>Election Safety</b>: at most one leader per term, and no node acting as the leader of a term it did not
 *       win;</li>
 *   <li><b>Leader Completeness</b>: an entry committed in a term is in the log of every leader of a later term
 *       (checked when a leader is elected, against every commit seen so far, and when a commit is seen, against
 *       every later term's leader seen so far);</li>
 *   <li><b>State Machine Safety</b>: no two nodes apply, and no two leaders commit, different entries at one
 *       index;</li>
 *   <li><b>Log Matching</b> ({@link #checkLogMatching}, at the end): two logs with an entry of the same index and
 *       term are identical up to it.</li>
 * </ul>
 * It also keeps each node's latest {@link RaftView}, which says who leads now ({@link #leader}): the hook a nemesis
 * that targets the leader reads, and who stands for election ({@link #candidate}), which one that strikes elections
 * reads, and passes each vote about to be granted to the listener of the vote hook ({@link #listenForVotes}). Not
 * thread-safe: a simulation has one thread.
 */
final class RaftChecker implements RaftObserver {
    private static final int MAX_VIOLATIONS = 5;

    private record Commit(long term, Entry entry) {
    }

    private final Consumer<String> events;
    private final Map<Integer, RaftView> views = new TreeMap<>();
    private final Map<Long, Integer> leaders = new HashMap<>();
    private final TreeMap<Long, List<Entry>> leaderLogs = new TreeMap<>();
    private final Map<Long, Commit> commits = new TreeMap<>();
    private final Map<Long, Entry> applied = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    /** The false claims of leadership reported so far, {@code node@term}: each is reported once. */
    private final java.util.Set<String> falseClaims = new java.util.HashSet<>();
    private boolean quiet;
    /** The vote hook's listener, or null: told of each vote about to be granted. */
    private Consumer<ClusterNemesis.Vote> votes;

    /**
     * @param events receives one line per notable decision (elections, violations), for traces
     */
    RaftChecker(Consumer<String> events) {
        this.events = events;
    }

    /** From now on the nodes take none of their fault points' rare paths: the harness measures liveness. */
    void faultsStopped() {
        quiet = true;
    }

    @Override
    public boolean quiet() {
        return quiet;
    }

    @Override
    public void started(RaftView view, String recovery) {
        views.put(view.id(), view);
        events.accept("node " + view.id() + " started: recovered " + recovery);
    }

    /** The vote hook ({@link ClusterNemesis.VoteHook}): {@code listener} is told of each vote about to be granted. */
    void listenForVotes(Consumer<ClusterNemesis.Vote> listener) {
        votes = listener;
    }

    @Override
    public void granting(int voter, int candidate, long term) {
        if (votes != null) {
            votes.accept(new ClusterNemesis.Vote(voter, candidate, term));
        }
    }

    @Override
    public void becameLeader(int node, long term, List<Entry> log) {
        events.accept("node " + node + " leads term " + term + " (" + log.size() + " entries)");
        Integer earlier = leaders.putIfAbsent(term, node);
        // One report per false claim, whether checkClaims saw the node act as leader first or not.
        if (earlier != null && earlier != node && falseClaims.add(node + "@" + term)) {
            violation("Election Safety: nodes " + earlier + " and " + node + " both lead term " + term);
        }
        leaderLogs.put(term, log);
        for (Map.Entry<Long, Commit> commit : commits.entrySet()) {
            if (commit.getValue().term() < term) {
                completeness(node, term, log, commit.getKey(), commit.getValue());
            }
        }
    }

    @Override
    public void committed(int leader, long term, long index, Entry entry) {
        checkClaims();
        Commit earlier = commits.get(index);
        if (earlier != null && !earlier.entry().equals(entry)) {
            violation("State Machine Safety: entry #" + index + " committed as " + earlier.entry() + " in term "
                    + earlier.term() + " and as " + entry + " by node " + leader + " in term " + term);
        }
        if (earlier == null || term < earlier.term()) {
            Commit commit = new Commit(term, entry);
            commits.put(index, commit);
            for (Map.Entry<Long, List<Entry>> later : leaderLogs.tailMap(term, false).entrySet()) {
                completeness(leaders.get(later.getKey()), later.getKey(), later.getValue(), index, commit);
            }
        }
    }

    @Override
    public void applied(int node, long index, Entry entry) {
        checkClaims();
        Entry earlier = applied.putIfAbsent(index, entry);
        if (earlier != null && !earlier.equals(entry)) {
            violation("State Machine Safety: node " + node + " applied " + entry + " at #" + index + ", where "
                    + earlier + " was applied before");
        }
    }

    /**
     * Election Safety as the nodes' views show it, between their decisions: no node's current lifetime acts as the
     * leader of a term it did not win (as a node would that wrote a newer term before stepping down). Checked at
     * every commit, apply and leader lookup.
     */
    private void checkClaims() {
        for (RaftView view : views.values()) {
            if (view.role() == RaftView.Role.LEADER) {
                Integer won = leaders.get(view.term());
                if ((won == null || won != view.id()) && falseClaims.add(view.id() + "@" + view.term())) {
                    violation("Election Safety: node " + view.id() + " acts as the leader of term " + view.term()
                            + ", which " + (won == null ? "no node" : "node " + won) + " won");
                }
            }
        }
    }

    private void completeness(int node, long term, List<Entry> log, long index, Commit commit) {
        if (log.size() < index || !log.get((int) (index - 1)).equals(commit.entry())) {
            violation("Leader Completeness: node " + node + " leads term " + term + " without entry #" + index + " "
                    + commit.entry() + ", committed in term " + commit.term() + " (it has "
                    + (log.size() < index ? "no entry there" : log.get((int) (index - 1))) + ")");
        }
    }

    /**
     * Log Matching over the nodes' current logs: for each pair, the last index where both have an entry of the same
     * term, and every entry up to it equal.
     */
    void checkLogMatching() {
        List<RaftView> all = new ArrayList<>(views.values());
        for (int a = 0; a < all.size(); a++) {
            for (int b = a + 1; b < all.size(); b++) {
                List<Entry> first = all.get(a).log();
                List<Entry> second = all.get(b).log();
                int common = Math.min(first.size(), second.size());
                int last = common;
                while (last > 0 && first.get(last - 1).term() != second.get(last - 1).term()) {
                    last--;
                }
                for (int i = 0; i < last; i++) {
                    if (!first.get(i).equals(second.get(i))) {
                        violation("Log Matching: nodes " + all.get(a).id() + " and " + all.get(b).id() + " agree on"
                                + " entry #" + last + "'s term but differ at #" + (i + 1) + ": " + first.get(i)
                                + " and " + second.get(i));
                        break;
                    }
                }
            }
        }
    }

    /**
     * The node that leads now: of the running nodes whose current lifetime says it leads, the one of the highest
     * term.
     *
     * @param running whether node {@code id} is running (not down or paused)
     * @return its id, or empty if no running node leads
     */
    OptionalInt leader(IntPredicate running) {
        checkClaims();
        OptionalInt best = OptionalInt.empty();
        long bestTerm = -1;
        for (RaftView view : views.values()) {
            if (view.role() == RaftView.Role.LEADER && running.test(view.id()) && view.term() > bestTerm) {
                best = OptionalInt.of(view.id());
                bestTerm = view.term();
            }
        }
        return best;
    }

    /**
     * A node standing for election now: of the running nodes whose current lifetime is a candidate, the one of the
     * highest term (the lowest id among equals).
     *
     * @param running whether node {@code id} is running (not down or paused)
     * @return its id, or empty if no election is running
     */
    OptionalInt candidate(IntPredicate running) {
        OptionalInt best = OptionalInt.empty();
        long bestTerm = -1;
        for (RaftView view : views.values()) {
            if (view.role() == RaftView.Role.CANDIDATE && running.test(view.id()) && view.term() > bestTerm) {
                best = OptionalInt.of(view.id());
                bestTerm = view.term();
            }
        }
        return best;
    }

    /**
     * An election contested now: two running candidates of the highest term that has two and a free voter, the
     * lowest ids first, and the running node of the lowest id that has voted for neither in that term (its term is
     * older, or it has not voted in it). An older term's candidates are stale: they step down at the newer term's
     * first message.
     *
     * @param running whether node {@code id} is running (not down or paused)
     * @return the contest, or null if there is none
     */
    ClusterNemesis.Contest contest(IntPredicate running) {
        ClusterNemesis.Contest best = null;
        long bestTerm = -1;
        for (RaftView first : views.values()) {
            if (first.role() != RaftView.Role.CANDIDATE || !running.test(first.id()) || first.term() <= bestTerm) {
                continue;
            }
            long term = first.term();
            ClusterNemesis.Contest found = contestOf(first, term, running);
            if (found != null) {
                best = found;
                bestTerm = term;
            }
        }
        return best;
    }

    /** The contest of {@code term} in which {@code first} is the lower-id candidate, or null. */
    private ClusterNemesis.Contest contestOf(RaftView first, long term, IntPredicate running) {
        for (RaftView second : views.values()) {
            if (second.id() <= first.id() || second.role() != RaftView.Role.CANDIDATE || second.term() != term
                    || !running.test(second.id())) {
                continue;
            }
            for (RaftView voter : views.values()) {
                if (voter != first && voter != second && running.test(voter.id())
                        && (voter.term() < term || voter.term() == term && voter.votedFor() == 0)) {
                    return new ClusterNemesis.Contest(first.id(), second.id(), voter.id());
                }
            }
        }
        return null;
    }

    /** The latest lifetime's view of node {@code id}, or null before it started. */
    RaftView view(int id) {
        return views.get(id);
    }

    void violation(String problem) {
        events.accept("CHECK FAILED: " + problem);
        if (violations.size() < MAX_VIOLATIONS) {
            violations.add(problem);
        }
    }

    List<String> violations() {
        return violations;
    }

    /** Elections seen (terms that had a leader). */
    int elections() {
        return leaders.size();
    }
}
