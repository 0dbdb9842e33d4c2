package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Task;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Each {@link SearchStrategy} finds a planted bug ({@link PlantedSearchBugs}) that plain random seeds do not find
 * in the same number of runs, and the failure it reports replays exactly from its printed line.
 */
class SearchStrategyTest {
    private static final Simulations.Plan PLAN = Simulations.Plan.of(FaultConfig.parse("none"));
    private static final Duration NO_CPU_LIMIT = Duration.ofDays(1);

    private static SearchResult search(String strategy, long seed, long runs, Task<Void> bug) {
        return SearchStrategy.named(strategy).search(seed, runs, NO_CPU_LIMIT, PLAN, () -> bug);
    }

    /** The failure's replay line reruns it: the same failure, the same digest. */
    private static void replaysExactly(SearchResult found, Task<Void> bug) {
        assertTrue(found.found(), found.strategy() + " found nothing in " + found.runs() + " runs");
        String replay = found.replayText();
        assertNotNull(replay);
        assertTrue(found.failure().getMessage().contains(replay), found.failure().getMessage());
        SimulationTestFailure again = assertThrows(SimulationTestFailure.class, () -> Simulations.replay(replay, bug));
        assertEquals(found.failure().digest(), again.digest(), replay);
        assertEquals(found.failure().getCause().getMessage(), again.getCause().getMessage());
    }

    @Test
    void randomFindsAShallowBugAndItReplays() {
        SearchResult found = search("random", 1, 100, PlantedSearchBugs.SHALLOW);
        replaysExactly(found, PlantedSearchBugs.SHALLOW);
        assertTrue(found.runs() < 100, "runs " + found.runs());
    }

    @Test
    void pctFindsAnOrderingBugRandomSeedsMiss() {
        assertFalse(search("random", 1, 200, PlantedSearchBugs.WATCHDOG_RACE).found());
        SearchResult found = search("pct", 1, 200, PlantedSearchBugs.WATCHDOG_RACE);
        replaysExactly(found, PlantedSearchBugs.WATCHDOG_RACE);
        assertTrue(found.replayText().contains(" priorities="), found.replayText());
    }

    @Test
    void faultPointSwarmFindsARarePathRandomSeedsMiss() {
        assertFalse(search("random", 1, 200, PlantedSearchBugs.RETRIES).found());
        SearchResult found = search("faultpoints", 1, 200, PlantedSearchBugs.RETRIES);
        replaysExactly(found, PlantedSearchBugs.RETRIES);
        assertTrue(found.replayText().contains(" faultPoints="), found.replayText());
    }

    @Test
    void guidedExplorationFindsADeepStateRandomSeedsMiss() {
        SearchResult random = search("random", 1, 300, PlantedSearchBugs.DEEP_STATE);
        assertFalse(random.found());
        assertEquals(java.util.Set.of("at the bug's stage"), random.neverSatisfied());
        SearchResult found = search("guided", 1, 400, PlantedSearchBugs.DEEP_STATE);
        replaysExactly(found, PlantedSearchBugs.DEEP_STATE);
        assertTrue(found.replayText().contains(" chain="), found.replayText());
        // The explorer's own choices come from its seed: the same seed makes the same runs.
        SearchResult again = search("guided", 1, 400, PlantedSearchBugs.DEEP_STATE);
        assertEquals(found.runs(), again.runs());
        assertEquals(found.replayText(), again.replayText());
    }

    /**
     * The default strategy finds what random seeds, priorities and fault points each find, within the budget their
     * tests above give the strategy that finds it, and its failures replay with every choice it made. (The guided
     * explorer's deep state is the one it leaves to {@code guided}: combined chooses each seed from the seed alone,
     * as random seeds do.)
     */
    @Test
    void combinedFindsWhatRandomPctAndFaultPointsFind() {
        SearchResult shallow = search("combined", 1, 100, PlantedSearchBugs.SHALLOW);
        replaysExactly(shallow, PlantedSearchBugs.SHALLOW);
        SearchResult ordering = search("combined", 1, 200, PlantedSearchBugs.WATCHDOG_RACE);
        replaysExactly(ordering, PlantedSearchBugs.WATCHDOG_RACE);
        assertTrue(ordering.replayText().contains(" priorities="), ordering.replayText());
        SearchResult rare = search("combined", 1, 200, PlantedSearchBugs.RETRIES);
        replaysExactly(rare, PlantedSearchBugs.RETRIES);
        assertTrue(rare.replayText().contains(" faultPoints="), rare.replayText());
    }

    /**
     * Combined's choices come from the seed alone: the fault points of {@code faultpoints} on every seed, the
     * priorities of {@code pct} on about one seed in four, and for a run with a cluster a nemesis; for a run without
     * one, none. Every choice is in the replay text and read back from it.
     */
    @Test
    void combinedChoosesFaultPointsPrioritiesAndANemesisFromTheSeedAlone() {
        SearchStrategy combined = SearchStrategy.named("combined");
        assertFalse(combined.sequential());
        int withPriorities = 0;
        java.util.Set<NemesisStrategy> nemeses = java.util.EnumSet.noneOf(NemesisStrategy.class);
        for (long seed = 1; seed <= 400; seed++) {
            SearchSettings settings = combined.settingsFor(seed, SearchSettings.DEFAULT, true);
            assertEquals(settings, SearchStrategy.named("combined").settingsFor(seed, SearchSettings.DEFAULT, true));
            assertEquals(SearchStrategy.named("faultpoints").settingsFor(seed, SearchSettings.DEFAULT).faultPoints(),
                    settings.faultPoints(), "seed " + seed);
            if (settings.priorities().on()) {
                withPriorities++;
                assertEquals(SearchStrategy.named("pct").settingsFor(seed, SearchSettings.DEFAULT).priorities(),
                        settings.priorities(), "seed " + seed);
            }
            assertNotNull(settings.nemesis(), "seed " + seed);
            nemeses.add(settings.nemesis());
            SearchSettings alone = combined.settingsFor(seed, SearchSettings.DEFAULT);
            assertEquals(combined.settingsFor(seed, SearchSettings.DEFAULT, false), alone);
            assertEquals(null, alone.nemesis(), "seed " + seed + " without a cluster");
            assertEquals(settings.faultPoints(), alone.faultPoints());
            assertEquals(alone, PLAN.withSearch(alone).search());
            assertFalse(PLAN.withSearch(alone).replayText(seed).contains("nemesis"));
            Simulations.Plan plan = PLAN.withSearch(settings);
            assertTrue(plan.replayText(seed).endsWith(" nemesis=" + settings.nemesis().cliName()),
                    plan.replayText(seed));
            assertEquals(new Simulations.Replay(seed, plan), Simulations.parseReplay(plan.replayText(seed)));
        }
        assertTrue(withPriorities > 50 && withPriorities < 150, "seeds with priorities: " + withPriorities);
        assertEquals(java.util.EnumSet.complementOf(java.util.EnumSet.of(NemesisStrategy.UNIFORM)), nemeses);
    }

    /**
     * A nemesis the start already names is the caller's choice: combined keeps it as it is, with or without a
     * cluster, and chooses the same fault points and priorities as for a start without one.
     */
    @Test
    void combinedKeepsTheNemesisItsStartNames() {
        SearchStrategy combined = SearchStrategy.named("combined");
        for (long seed = 1; seed <= 200; seed++) {
            SearchSettings drawn = combined.settingsFor(seed, SearchSettings.DEFAULT, true);
            for (NemesisStrategy chosen : NemesisStrategy.values()) {
                SearchSettings start = SearchSettings.DEFAULT.withNemesis(chosen);
                assertEquals(drawn.withNemesis(chosen), combined.settingsFor(seed, start, true), "seed " + seed);
                SearchSettings alone = combined.settingsFor(seed, start, false);
                assertEquals(chosen, alone.nemesis(), "seed " + seed + " without a cluster");
                assertEquals(combined.settingsFor(seed, SearchSettings.DEFAULT).withNemesis(chosen), alone);
            }
        }
    }

    @Test
    void unknownNamesAndEmptyBudgetsAreRefusedNamingThem() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> SearchStrategy.named("smart"));
        assertTrue(unknown.getMessage().contains("'smart'") && unknown.getMessage().contains("guided"),
                unknown.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> search("random", 1, 0, PlantedSearchBugs.SHALLOW));
        assertTrue(none.getMessage().contains("was 0"), none.getMessage());
        for (String name : SearchStrategy.NAMES) {
            assertEquals(name, SearchStrategy.named(name).name());
        }
    }

    @Test
    void independentStrategiesChooseEachSeedsSettingsFromTheSeedAlone() {
        SearchStrategy pct = SearchStrategy.named("pct");
        java.util.Set<dev.lockstep.sim.Priorities> chosen = new java.util.HashSet<>();
        for (long seed = 1; seed <= 30; seed++) {
            SearchSettings settings = pct.settingsFor(seed, SearchSettings.DEFAULT);
            assertEquals(settings, SearchStrategy.named("pct").settingsFor(seed, SearchSettings.DEFAULT));
            assertTrue(settings.priorities().on());
            chosen.add(settings.priorities());
        }
        assertTrue(chosen.size() > 3, chosen.toString());
        assertEquals(SearchSettings.DEFAULT, SearchStrategy.named("random").settingsFor(5, SearchSettings.DEFAULT));
        assertTrue(SearchStrategy.named("faultpoints").settingsFor(5, SearchSettings.DEFAULT).replayText()
                .startsWith(" faultPoints="));
        assertTrue(SearchStrategy.named("guided").sequential());
        assertThrows(UnsupportedOperationException.class,
                () -> SearchStrategy.named("guided").settingsFor(5, SearchSettings.DEFAULT));
    }

    @Test
    void aReplayWithBadSearchSettingsIsRefusedNamingThem() {
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Simulations.replay(
                "seed=1 workers=1 faults=none crashes=0 crashWithinNanos=1000 timeLimitNanos=1000000000"
                        + " chain=5:1,3:2", PlantedSearchBugs.SHALLOW));
        assertTrue(bad.getMessage().contains("3:2"), bad.getMessage());
        IllegalArgumentException priorities = assertThrows(IllegalArgumentException.class, () -> Simulations.replay(
                "seed=1 workers=1 faults=none crashes=0 crashWithinNanos=1000 timeLimitNanos=1000000000"
                        + " priorities=deep", PlantedSearchBugs.SHALLOW));
        assertTrue(priorities.getMessage().contains("'deep'"), priorities.getMessage());
    }
}
