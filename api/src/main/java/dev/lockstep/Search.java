package dev.lockstep;

import dev.lockstep.spi.SearchHooks;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Hooks that protocol code calls to help the simulator's search find its bugs: fault points that take rare paths,
 * and assertions that say which states a sweep should reach. In production (runtime-uring, or no runtime at all)
 * every call is a no-op: {@link #faultPoint} returns {@code false} and the assertions record nothing, so the calls
 * stay in the code that ships.
 *
 * <h2>Fault points</h2>
 * {@code if (Search.faultPoint("raft.drop-append")) return;} marks a rare path the code may take at any time without
 * being wrong: drop a message it could have lost anyway, time out early, flush a cache, split a batch. In the
 * simulator, as in FoundationDB's BUGGIFY, each point is decided once per simulated process run: the first time a
 * run reaches a point, the point is <em>enabled</em> for the rest of that run with some probability (a quarter by
 * default), and each time an enabled point is reached it <em>fires</em> with some probability (a quarter by
 * default); a disabled point never fires. The probabilities are the simulator's ({@code SimConfig.faultPoints}),
 * and each of these decisions is a draw from the run's seed made only when a point is reached, so a run of code
 * without fault points draws exactly what it drew before, and the same seed takes the same paths every time. Each
 * reach is in the audit with the point's name and whether it fired, and the run's report counts them per point.
 *
 * <h2>Assertions that steer the search</h2>
 * {@link #sometimes(boolean, String)} states that a condition should be true at this place in some run of a sweep
 * (a leader was elected twice, a read was served during a partition): a sweep reports each label that was evaluated
 * but never true, which says the tests do not reach that state. {@link #reached(String, long)} marks a state worth
 * reaching more of (a log length, an election term, a recovery step): the guided explorer keeps a run that reached a
 * label with a value no earlier run reached and branches new runs from it. Neither draws nor records anything in the
 * audit, so adding them changes no run and no digest.
 *
 * <h2>Threads</h2>
 * Any thread may call these. Only calls from a simulated task count: from any other thread (a plain thread, a
 * runtime-uring fiber) they are no-ops, and {@code faultPoint} returns {@code false}.
 */
public final class Search {
    /** The longest name or label accepted, in characters. */
    public static final int MAX_NAME_LENGTH = 200;

    private static final SearchHooks HOOKS = load();

    private Search() {
    }

    private static SearchHooks load() {
        for (SearchHooks found : ServiceLoader.load(SearchHooks.class, SearchHooks.class.getClassLoader())) {
            return found;
        }
        return null;
    }

    /**
     * Whether to take the rare path named {@code name} now: see the class doc.
     *
     * @param name the point's name, the same at every call of this point; 1 to {@value #MAX_NAME_LENGTH}
     *             characters
     * @return in the simulator, true when the point is enabled for this run and fires at this reach; false
     *     everywhere else
     * @throws IllegalArgumentException naming a name that is empty or longer than {@value #MAX_NAME_LENGTH}
     *     characters (on every runtime)
     * @throws NullPointerException if {@code name} is null
     */
    public static boolean faultPoint(String name) {
        check(name, "fault point name");
        return HOOKS != null && HOOKS.faultPoint(name);
    }

    /**
     * States that {@code condition} should be true here in some run of a sweep: see the class doc.
     *
     * @param condition the condition, evaluated by the caller
     * @param label what it means; 1 to {@value #MAX_NAME_LENGTH} characters
     * @throws IllegalArgumentException naming a label that is empty or too long (on every runtime)
     * @throws NullPointerException if {@code label} is null
     */
    public static void sometimes(boolean condition, String label) {
        check(label, "sometimes label");
        if (HOOKS != null) {
            HOOKS.sometimes(condition, label);
        }
    }

    /**
     * Marks a state worth reaching more of: a run that reaches {@code label} with a {@code value} no earlier run of
     * the guided explorer reached is kept, and later runs branch from it. Keep the values few (a phase, a
     * bucketed size, a term): each distinct pair is a new state.
     *
     * @param label what is measured; 1 to {@value #MAX_NAME_LENGTH} characters
     * @param value its value here
     * @throws IllegalArgumentException naming a label that is empty or too long (on every runtime)
     * @throws NullPointerException if {@code label} is null
     */
    public static void reached(String label, long value) {
        check(label, "reached label");
        if (HOOKS != null) {
            HOOKS.reached(label, value);
        }
    }

    private static void check(String name, String what) {
        Objects.requireNonNull(name, what);
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + " must have 1 to " + MAX_NAME_LENGTH + " characters, was '"
                    + (name.length() > MAX_NAME_LENGTH ? name.substring(0, 40) + "...' (" + name.length()
                    + " characters)" : name + "'"));
        }
    }
}
