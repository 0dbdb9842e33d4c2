package dev.lockstep.property;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Shrinks a failing try by editing its recorded choices: deletes spans (list elements) and chunks of choices,
 * zeroes spans, lowers single choices by binary search and, when nothing else helps, moves value between nearby
 * choices, keeping each edit that still fails the same way and
 * whose own record is smaller (shorter, or as long and lexicographically lower). That order is well-founded, so
 * shrinking ends; it also ends after {@code limit} runs of the body. Nothing here depends on time or on other
 * randomness: the same failing try always shrinks to the same case.
 */
final class Shrinker {

    /** One run of the property on replayed choices. */
    interface Runner {
        /**
         * Replays {@code choices} through the generators and the body.
         *
         * @param choices the candidate record
         * @return the run, if it failed the way the original did; null otherwise (passed, discarded, other failure)
         */
        Attempt run(long[] choices);
    }

    /**
     * A failing run: the record it made, which values may not be lowered, its spans, its arguments and failure.
     */
    record Attempt(long[] values, boolean[] fixed, List<int[]> spans, List<Object> arguments, Throwable failure) {
    }

    private final Runner runner;
    private final int limit;
    private final Set<List<Long>> tried = new HashSet<>();
    private Attempt best;
    private int runs;
    private int steps;

    Shrinker(Runner runner, int limit) {
        this.runner = runner;
        this.limit = limit;
    }

    /** Shrinks {@code failing} and returns the smallest failing run found. */
    Attempt shrink(Attempt failing) {
        best = failing;
        tried.add(key(failing.values()));
        boolean improved = true;
        while (improved && runs < limit) {
            improved = deleteSpans();
            for (int size : new int[] {8, 4, 2, 1}) {
                improved |= deleteChunks(size);
            }
            improved |= zeroSpans();
            improved |= lowerEach();
            if (!improved) {
                improved = redistribute();
            }
        }
        return best;
    }

    /** Accepted edits. */
    int steps() {
        return steps;
    }

    /** Runs of the body while shrinking. */
    int runs() {
        return runs;
    }

    private boolean deleteSpans() {
        boolean improved = false;
        for (int i = best.spans().size() - 1; i >= 0 && runs < limit; i--) {
            List<int[]> spans = best.spans();
            if (i >= spans.size()) {
                i = spans.size();
                continue;
            }
            int[] span = spans.get(i);
            improved |= attempt(remove(best.values(), span[0], span[1]));
        }
        return improved;
    }

    private boolean deleteChunks(int size) {
        boolean improved = false;
        for (int start = best.values().length - size; start >= 0 && runs < limit; start--) {
            if (start + size <= best.values().length && !holdsFixed(start, start + size)) {
                improved |= attempt(remove(best.values(), start, start + size));
            }
        }
        return improved;
    }

    /**
     * Whether choices {@code [from, to)} of the best attempt hold one the shrinker may not lower: deleting it
     * would shift the next choice into its place, which lowers it as surely as editing it (a seed is then
     * another run, not a simpler one). Deleting a whole span, such as a list element holding a seed, is fine.
     */
    private boolean holdsFixed(int from, int to) {
        boolean[] fixed = best.fixed();
        for (int i = from; i < to && i < fixed.length; i++) {
            if (fixed[i]) {
                return true;
            }
        }
        return false;
    }

    private boolean zeroSpans() {
        boolean improved = false;
        for (int i = 0; i < best.spans().size() && runs < limit; i++) {
            int[] span = best.spans().get(i);
            long[] candidate = best.values().clone();
            boolean changed = false;
            for (int j = span[0]; j < span[1] && j < candidate.length; j++) {
                if (!best.fixed()[j] && candidate[j] != 0) {
                    candidate[j] = 0;
                    changed = true;
                }
            }
            if (changed) {
                improved |= attempt(candidate);
            }
        }
        return improved;
    }

    private boolean lowerEach() {
        boolean improved = false;
        for (int i = 0; i < best.values().length && runs < limit; i++) {
            if (best.fixed()[i] || best.values()[i] == 0) {
                continue;
            }
            if (attempt(with(best.values(), i, 0))) {
                improved = true;
                continue;
            }
            // 0 passes and the current value fails: find the smallest failing value between them.
            long passing = 0;
            while (runs < limit && i < best.values().length && best.values()[i] - passing > 1) {
                long failing = best.values()[i];
                long middle = passing + (failing - passing) / 2;
                if (attempt(with(best.values(), i, middle))) {
                    improved = true;
                } else {
                    passing = middle;
                }
            }
        }
        return improved;
    }

    /**
     * Moves value from one choice to a later one nearby (up to 8 on: a few list elements away). Where several
     * values only fail together ({@code a + b > limit}), lowering either alone passes, but lowering one while
     * raising the other can reach a case where one of them is 0 and its span can go.
     */
    private boolean redistribute() {
        boolean improved = false;
        for (int i = 0; i < best.values().length && runs < limit; i++) {
            for (int j = i + 1; j < Math.min(i + 9, best.values().length) && runs < limit; j++) {
                long[] values = best.values();
                if (best.fixed()[i] || best.fixed()[j] || values[i] == 0) {
                    continue;
                }
                for (long keep : new long[] {0, values[i] / 2}) {
                    long moved = values[i] - keep;
                    if (moved > 0 && values[j] <= Long.MAX_VALUE - moved) {
                        long[] candidate = with(values, i, keep);
                        candidate[j] = values[j] + moved;
                        if (attempt(candidate)) {
                            improved = true;
                            break;
                        }
                    }
                }
            }
        }
        return improved;
    }

    /** Runs {@code candidate}; keeps it if it fails the same way and its record is smaller than the best. */
    private boolean attempt(long[] candidate) {
        if (!tried.add(key(candidate))) {
            return false;
        }
        runs++;
        Attempt result = runner.run(candidate);
        if (result == null || compare(result.values(), best.values()) >= 0) {
            return false;
        }
        best = result;
        steps++;
        return true;
    }

    /** Shortlex: shorter first, then lexicographically by value. */
    static int compare(long[] a, long[] b) {
        if (a.length != b.length) {
            return Integer.compare(a.length, b.length);
        }
        return Arrays.compare(a, b);
    }

    private static long[] remove(long[] values, int start, int end) {
        long[] result = new long[values.length - (end - start)];
        System.arraycopy(values, 0, result, 0, start);
        System.arraycopy(values, end, result, start, values.length - end);
        return result;
    }

    private static long[] with(long[] values, int index, long value) {
        long[] result = values.clone();
        result[index] = value;
        return result;
    }

    private static List<Long> key(long[] values) {
        return Arrays.stream(values).boxed().toList();
    }
}
