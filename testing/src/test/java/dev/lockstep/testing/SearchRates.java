package dev.lockstep.testing;

import dev.lockstep.Task;
import java.time.Duration;
import java.util.Map;

/** Prints, per planted bug and strategy, runs to the first failure over a few disjoint seed ranges: for BENCHMARKS. */
public final class SearchRates {
    private SearchRates() {
    }

    public static void main(String[] args) {
        long budget = args.length > 0 ? Long.parseLong(args[0]) : 2_000;
        Map<String, Task<Void>> bugs = Map.of("watchdog-race", PlantedSearchBugs.WATCHDOG_RACE,
                "retries", PlantedSearchBugs.RETRIES, "deep-state", PlantedSearchBugs.DEEP_STATE);
        for (String bug : args.length > 1 ? args[1].split(",") : new String[] {"watchdog-race", "retries", "deep-state"}) {
            for (String strategy : SearchStrategy.NAMES) {
                StringBuilder line = new StringBuilder(bug + " " + strategy + ":");
                for (long start : new long[] {1, 1_000_001, 2_000_001}) {
                    SearchResult result = SearchStrategy.named(strategy).search(start, budget, Duration.ofDays(1),
                            Simulations.Plan.of(FaultConfig.parse("none")), () -> bugs.get(bug));
                    line.append(' ').append(result.found() ? result.runs() + " runs" : "none in " + result.runs())
                            .append(" (").append(result.cpuNanos() / 1_000_000).append(" ms)");
                }
                System.out.println(line);
            }
        }
    }
}
