package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Search;
import dev.lockstep.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Search}'s fault points and assertions in the simulator: decided by the seed, drawn only when reached,
 * counted per point, and the assertions changing nothing of the run.
 */
class FaultPointsTest {

    /** Reaches two points ten times each between sleeps and returns what each reach answered. */
    private static final Task<List<Boolean>> TWO_POINTS = ctx -> {
        List<Boolean> answers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            answers.add(Search.faultPoint("drop-message"));
            answers.add(Search.faultPoint("slow-disk"));
            ctx.sleep(Duration.ofMillis(1));
        }
        return answers;
    };

    /** The same task without the calls: what the run draws besides the points. */
    private static final Task<List<Boolean>> NO_POINTS = ctx -> {
        for (int i = 0; i < 10; i++) {
            ctx.sleep(Duration.ofMillis(1));
        }
        return List.of();
    };

    private static SimRunner runner(long seed, FaultPoints points) {
        return SimRunner.of(SimConfig.builder().seed(seed).faultPoints(points).build());
    }

    @Test
    void theSameSeedTakesTheSamePathsAndEachReachIsCounted() {
        int firedSomewhere = 0;
        int disabledSomewhere = 0;
        for (long seed = 1; seed <= 40; seed++) {
            SimRunner first = runner(seed, FaultPoints.DEFAULT);
            List<Boolean> answers = first.start(TWO_POINTS);
            SimRunner second = runner(seed, FaultPoints.DEFAULT);
            assertEquals(answers, second.start(TWO_POINTS), "seed " + seed);
            assertEquals(first.digest(), second.digest(), "seed " + seed);

            Coverage coverage = first.coverage();
            for (int point = 0; point < 2; point++) {
                String name = point == 0 ? "drop-message" : "slow-disk";
                long fired = 0;
                for (int i = point; i < answers.size(); i += 2) {
                    fired += answers.get(i) ? 1 : 0;
                }
                Coverage.FaultPointCount count = coverage.faultPoints().get(name);
                assertEquals(10, count.reached(), name + " of seed " + seed);
                assertEquals(fired, count.fired(), name + " of seed " + seed);
                if (!count.enabled()) {
                    assertEquals(0, count.fired(), "a disabled point fired: " + name + " of seed " + seed);
                    disabledSomewhere++;
                }
                firedSomewhere += fired > 0 ? 1 : 0;
                assertEquals(fired > 0, coverage.signals().containsKey("faultPoint:" + name));
            }
        }
        assertTrue(firedSomewhere > 0, "no point fired in 40 seeds");
        assertTrue(disabledSomewhere > 0, "every point was enabled in 40 seeds");
    }

    @Test
    void probabilitiesOfOneAlwaysFireAndOffNeverFiresNorDraws() {
        List<Boolean> always = runner(3, new FaultPoints(1, 1)).start(TWO_POINTS);
        assertFalse(always.contains(false), always.toString());

        SimRunner off = runner(3, FaultPoints.OFF);
        assertFalse(off.start(TWO_POINTS).contains(true));
        SimRunner without = runner(3, FaultPoints.OFF);
        without.start(NO_POINTS);
        assertEquals(without.stats().draws(), off.stats().draws(), "reaching a point that cannot fire drew");

        SimRunner on = runner(3, FaultPoints.DEFAULT);
        on.start(TWO_POINTS);
        // One enable draw per point, then one fire draw per reach of an enabled point.
        long enabledReaches = on.coverage().faultPoints().values().stream()
                .filter(Coverage.FaultPointCount::enabled).mapToLong(Coverage.FaultPointCount::reached).sum();
        SimRunner baseline = runner(3, FaultPoints.DEFAULT);
        baseline.start(NO_POINTS);
        assertEquals(baseline.stats().draws() + 2 + enabledReaches, on.stats().draws());
    }

    @Test
    void assertionsDrawNothingAndLeaveTheDigestAsItWas() {
        Task<Long> plain = ctx -> {
            long sum = 0;
            for (int i = 0; i < 20; i++) {
                sum += SimRunner.control(ctx).random().nextInt(10);
                ctx.sleep(Duration.ofMillis(1));
            }
            return sum;
        };
        Task<Long> asserted = ctx -> {
            long sum = 0;
            for (int i = 0; i < 20; i++) {
                int drawn = SimRunner.control(ctx).random().nextInt(10);
                Search.sometimes(drawn == 9, "drew a nine");
                Search.sometimes(drawn > 100, "drew past the bound");
                Search.reached("sum bucket", (sum + drawn) / 20);
                sum += drawn;
                ctx.sleep(Duration.ofMillis(1));
            }
            return sum;
        };
        SimRunner without = SimRunner.seeded(11);
        long expected = without.start(plain);
        SimRunner with = SimRunner.seeded(11);
        assertEquals(expected, with.start(asserted));
        assertEquals(without.digest(), with.digest());

        Coverage coverage = with.coverage();
        assertEquals(20, coverage.sometimes().get("drew past the bound").evaluated());
        assertEquals(0, coverage.sometimes().get("drew past the bound").satisfied());
        assertEquals(coverage.sometimes().get("drew a nine").satisfied() > 0,
                coverage.signals().containsKey("sometimes:drew a nine"));
        assertTrue(coverage.signals().containsKey("reached:sum bucket=0"), coverage.signals().toString());
        assertFalse(coverage.signals().containsKey("sometimes:drew past the bound"));
    }

    @Test
    void outsideASimulationEveryCallIsANoOp() {
        assertFalse(Search.faultPoint("anything"));
        Search.sometimes(true, "anything");
        Search.reached("anything", 1);
    }

    @Test
    void badNamesAndProbabilitiesAreRefusedNamingThem() {
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> Search.faultPoint(""));
        assertTrue(empty.getMessage().contains("was ''"), empty.getMessage());
        String longName = "x".repeat(Search.MAX_NAME_LENGTH + 1);
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> Search.sometimes(true, longName));
        assertTrue(tooLong.getMessage().contains("201 characters"), tooLong.getMessage());
        assertThrows(NullPointerException.class, () -> Search.reached(null, 1));
        InvalidConfigException rate = assertThrows(InvalidConfigException.class, () -> new FaultPoints(1.5, 0));
        assertEquals("FaultPoints.enableProbability", rate.field());
        assertTrue(rate.getMessage().contains("1.5"), rate.getMessage());
        assertEquals(new FaultPoints(0.5, 0.125), FaultPoints.parse(new FaultPoints(0.5, 0.125).toString()));
        IllegalArgumentException parse = assertThrows(IllegalArgumentException.class, () -> FaultPoints.parse("x"));
        assertTrue(parse.getMessage().contains("'x'"), parse.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FaultPoints.parse("NaN:0.5"));
        assertThrows(IllegalArgumentException.class, () -> FaultPoints.parse("0x1p-2:0.5"));
        assertEquals(new FaultPoints(1.0E-4, 1), FaultPoints.parse(new FaultPoints(1.0E-4, 1).toString()));
    }

    @Test
    void aReplayLineCarriesTheFaultPoints() {
        SimConfig config = SimConfig.builder().seed(9).faultPoints(new FaultPoints(1, 0.5)).build();
        assertTrue(config.toJava().contains(".faultPoints(new FaultPoints(1.0, 0.5))"), config.toJava());
        assertFalse(SimConfig.builder().build().toJava().contains("faultPoints"));
    }
}
