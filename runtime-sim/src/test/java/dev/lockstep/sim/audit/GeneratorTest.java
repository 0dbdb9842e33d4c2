package dev.lockstep.sim.audit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GeneratorTest {

    @Test
    void matchesXoshiro256StarStarSeededBySplitMix64() {
        // Computed by an independent implementation of the published algorithms: pins the sequence forever.
        Generator generator = new Generator(42);
        assertEquals(1546998764402558742L, generator.nextLong(Site.APPLICATION));
        assertEquals(6990951692964543102L, generator.nextLong(Site.APPLICATION));
        assertEquals(-5902157311460992607L, generator.nextLong(Site.APPLICATION));
        assertEquals(-1389169964527427423L, generator.nextLong(Site.APPLICATION));
        Generator zero = new Generator(0);
        assertEquals(-7355399402456485196L, zero.nextLong(Site.APPLICATION));
        assertEquals(-4652746763540216534L, zero.nextLong(Site.APPLICATION));
    }

    private static long[] mixedDraws(long seed) {
        Generator generator = new Generator(seed);
        long[] values = new long[500];
        for (int i = 0; i < values.length; i++) {
            values[i] = switch (i % 5) {
                case 0 -> generator.nextLong(Site.SCHEDULE);
                case 1 -> generator.nextInt(Site.RING_LATENCY, 1 + i);
                case 2 -> generator.nextLongBetween(Site.NETWORK_JITTER, -i, i);
                case 3 -> generator.chance(Site.FAULT_READ, 0.3) ? 1 : 0;
                default -> Double.doubleToRawLongBits(generator.nextDouble(Site.APPLICATION));
            };
        }
        return values;
    }

    @Test
    void sameSeedGivesTheSameDrawsAndOtherSeedsDoNot() {
        assertArrayEquals(mixedDraws(7), mixedDraws(7));
        assertFalse(java.util.Arrays.equals(mixedDraws(7), mixedDraws(8)));
    }

    @Test
    void snapshotAndRestoreRepeatTheFollowingDraws() {
        Generator generator = new Generator(99);
        generator.nextLong(Site.SCHEDULE);
        Generator.State state = generator.snapshot();
        long[] first = {generator.nextLong(Site.SCHEDULE), generator.nextInt(Site.SCHEDULE, 10)};
        generator.restore(state);
        long[] again = {generator.nextLong(Site.SCHEDULE), generator.nextInt(Site.SCHEDULE, 10)};
        assertArrayEquals(first, again);
        Generator resumed = Generator.fromState(state);
        assertEquals(first[0], resumed.nextLong(Site.SCHEDULE));
        assertEquals(state.draws(), Generator.fromState(state).draws());
        assertThrows(IllegalArgumentException.class, () -> new Generator(1).restore(state));
    }

    @Test
    void boundedDrawsStayInRangeAndCoverIt() {
        Generator generator = new Generator(3);
        boolean[] seen = new boolean[7];
        for (int i = 0; i < 1000; i++) {
            int value = generator.nextInt(Site.APPLICATION, 7);
            assertTrue(value >= 0 && value < 7);
            seen[value] = true;
            long between = generator.nextLongBetween(Site.APPLICATION, -3, 3);
            assertTrue(between >= -3 && between <= 3);
            long big = generator.nextLong(Site.APPLICATION, 1_000_000_007L);
            assertTrue(big >= 0 && big < 1_000_000_007L);
        }
        for (boolean hit : seen) {
            assertTrue(hit);
        }
        assertEquals(5, generator.nextLongBetween(Site.APPLICATION, 5, 5));
        generator.nextLongBetween(Site.APPLICATION, Long.MIN_VALUE, Long.MAX_VALUE);
        assertThrows(IllegalArgumentException.class, () -> generator.nextInt(Site.APPLICATION, 0));
        assertThrows(IllegalArgumentException.class, () -> generator.nextLong(Site.APPLICATION, -1L));
        assertThrows(IllegalArgumentException.class, () -> generator.nextLongBetween(Site.APPLICATION, 2, 1));
    }

    @Test
    void chanceIsExactAtTheEdgesAndAlwaysTakesOneDraw() {
        Generator generator = new Generator(5);
        for (int i = 0; i < 1000; i++) {
            assertFalse(generator.chance(Site.FAULT_WRITE, 0.0));
            assertTrue(generator.chance(Site.FAULT_WRITE, 1.0));
        }
        assertEquals(2000, generator.draws());
        int hits = 0;
        for (int i = 0; i < 10_000; i++) {
            hits += generator.chance(Site.FAULT_WRITE, 0.25) ? 1 : 0;
        }
        assertTrue(hits > 2200 && hits < 2800, "about a quarter, was " + hits);
        assertThrows(IllegalArgumentException.class, () -> generator.chance(Site.FAULT_WRITE, -0.1));
        assertThrows(IllegalArgumentException.class, () -> generator.chance(Site.FAULT_WRITE, 1.1));
        assertThrows(IllegalArgumentException.class, () -> generator.chance(Site.FAULT_WRITE, Double.NaN));
    }

    @Test
    void observerSeesEverySiteAndValue() {
        Generator generator = new Generator(11);
        List<String> seen = new ArrayList<>();
        generator.setObserver((site, value) -> seen.add(site + "=" + value));
        long value = generator.nextLong(Site.SCHEDULE);
        boolean roll = generator.chance(Site.FAULT_SYNC, 0.5);
        int bounded = generator.nextInt(Site.RING_LATENCY, 3);
        assertEquals(List.of("SCHEDULE=" + value, "FAULT_SYNC=" + (roll ? 1 : 0), "RING_LATENCY=" + bounded), seen);
    }

    @Test
    void aForcedDrawAdvancesTheGeneratorUnobserved() {
        Generator plain = new Generator(12);
        Generator observed = new Generator(12);
        List<String> seen = new ArrayList<>();
        observed.setObserver((site, value) -> seen.add(site + "=" + value));
        // Five draws with one outcome each, then one that has a choice.
        assertFalse(observed.chance(Site.SPURIOUS_EAGAIN, 0.0));
        assertTrue(observed.chance(Site.FAULT_SYNC, 1.0));
        assertEquals(0, observed.nextInt(Site.SCHEDULE, 1));
        assertEquals(0, observed.nextLong(Site.SCHEDULE, 1));
        assertEquals(7, observed.nextLongBetween(Site.NETWORK_JITTER, 7, 7));
        long next = observed.nextLong(Site.APPLICATION);
        for (int i = 0; i < 5; i++) {
            plain.nextLong(Site.APPLICATION);
        }
        // Each forced draw took one value, so the free draw after them shows they happened.
        assertEquals(plain.nextLong(Site.APPLICATION), next);
        assertEquals(6, observed.draws());
        assertEquals(List.of("APPLICATION=" + next), seen);
    }

    @Test
    void shuffleIsSeeded() {
        List<Integer> a = new ArrayList<>(List.of(1, 2, 3, 4, 5, 6, 7, 8));
        List<Integer> b = new ArrayList<>(a);
        List<Integer> c = new ArrayList<>(a);
        new Generator(1).shuffle(Site.COMPLETION_ORDER, a);
        new Generator(1).shuffle(Site.COMPLETION_ORDER, b);
        new Generator(2).shuffle(Site.COMPLETION_ORDER, c);
        assertEquals(a, b);
        assertNotEquals(a, c);
    }
}
