package dev.lockstep.testing;

import dev.lockstep.sim.DecisionChain;
import dev.lockstep.sim.SeededChoices;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The guided explorer behind {@link SearchStrategy} {@code guided}: a corpus of runs that reached something new,
 * and new runs that branch from them.
 *
 * <p>Each run is a seed and a {@link DecisionChain}. After a run, its signals ({@link dev.lockstep.sim.Coverage})
 * are compared with every signal seen so far; a run with one never seen before, or one it reached in less than
 * 1/{@value #SOONER} of the draws any run before took, joins the corpus with its <em>prefix</em>: the draws up to
 * the last of those signals (each signal comes with the draw count at which the run first reached it). The next run is, one time in {@value #FRESH_ONE_IN}, a fresh seed (the next of the
 * sweep); otherwise a branch of a corpus run (the later of two uniform picks, so the newer finds are branched from
 * more): the same seed, its chain cut at the end of its prefix or (one time in two) at a draw chosen uniformly
 * after it, then a fresh seed from there. The branch replays its parent's prefix and goes elsewhere after it, so
 * what the parent newly reached it reaches again, and a state built of several rare steps is reached one step at a
 * time.
 *
 * <p>Every choice is drawn from {@link SeededChoices} of the explorer's own seed, and depends only on the runs'
 * signals and draw counts, which are the same for every run of a seed: the same seed explores the same runs.
 * Memory: one entry per corpus run (its seed, chain and draw count) and the set of signals seen, both bounded by
 * what the runs reached. Confined to the searching thread.
 */
final class GuidedExplorer implements SearchStrategy.Session {
    /** One run in this many is a fresh seed rather than a branch. */
    static final int FRESH_ONE_IN = 8;
    /**
     * A run that reaches a known signal within this fraction of the draws the earliest run before it took is kept
     * too: a prefix that gets there much sooner leaves more of a run to go further from.
     */
    static final int SOONER = 2;

    /** A corpus run. */
    private record Entry(long seed, Simulations.Plan plan, long prefix, long draws) {
    }

    private final SeededChoices choices;
    private final java.util.function.LongFunction<Simulations.Plan> planOf;
    private long nextFreshSeed;
    private final List<Entry> corpus = new ArrayList<>();
    /** Every signal seen, with the earliest draw count at which a run reached it. */
    private final Map<String, Long> seen = new HashMap<>();

    /**
     * @param firstSeed the first fresh seed, and the seed of the explorer's own choices
     * @param planOf the plan of a fresh run of a seed
     */
    GuidedExplorer(long firstSeed, java.util.function.LongFunction<Simulations.Plan> planOf) {
        this.choices = SearchStrategy.choices(firstSeed, 0x4755L);
        this.planOf = planOf;
        this.nextFreshSeed = firstSeed;
    }

    @Override
    public SearchStrategy.Candidate next() {
        if (corpus.isEmpty() || choices.nextInt(FRESH_ONE_IN) == 0) {
            return fresh();
        }
        int first = choices.nextInt(corpus.size());
        int second = choices.nextInt(corpus.size());
        Entry parent = corpus.get(Math.max(first, second));
        long prefix = Math.max(1, parent.prefix());
        long cut = prefix;
        if (choices.nextInt(2) == 0 && parent.draws() > prefix) {
            cut = choices.nextLongBetween(prefix, parent.draws());
        }
        long branchSeed = choices.nextLong();
        DecisionChain parentChain = parent.plan().search().chain();
        if (parentChain.segments().size() >= DecisionChain.MAX_SEGMENTS - 1) {
            return fresh();
        }
        DecisionChain chain = parentChain.branch(cut, branchSeed);
        return new SearchStrategy.Candidate(parent.seed(),
                parent.plan().withSearch(parent.plan().search().withChain(chain)));
    }

    private SearchStrategy.Candidate fresh() {
        long seed = nextFreshSeed++;
        return new SearchStrategy.Candidate(seed, planOf.apply(seed));
    }

    @Override
    public void observe(SearchStrategy.Candidate run, RunRecord record) {
        long prefix = -1;
        for (Map.Entry<String, Long> signal : record.signals().entrySet()) {
            Long earliest = seen.get(signal.getKey());
            if (earliest == null || signal.getValue() < earliest / SOONER) {
                seen.put(signal.getKey(), signal.getValue());
                prefix = Math.max(prefix, signal.getValue());
            }
        }
        if (prefix >= 0) {
            corpus.add(new Entry(run.seed(), run.plan(), prefix, record.draws()));
        }
    }

    /** How many runs the corpus holds. */
    int corpusSize() {
        return corpus.size();
    }
}
