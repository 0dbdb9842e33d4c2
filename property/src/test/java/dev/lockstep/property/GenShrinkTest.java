package dev.lockstep.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Generators and shrinking, through {@link PropertyCheck}: what a failing property reports. */
class GenShrinkTest {

    private static PropertyFailure failure(Runnable run) {
        return assertThrows(PropertyFailure.class, run::run);
    }

    @Test
    void anIntShrinksToTheSmallestFailingValue() {
        PropertyFailure failure = failure(() -> PropertyCheck.named("small").seed(1).tries(100)
                .forAll(Gen.ints(0, 1_000_000), x -> assertTrue(x < 1000, "too big: " + x)));
        assertEquals(List.of(1000), failure.shrunk());
        assertTrue((Integer) failure.original().getFirst() >= 1000);
    }

    @Test
    void intsAcrossZeroShrinkTowardsZeroAndPreferTheNonNegative() {
        PropertyFailure failure = failure(() -> PropertyCheck.named("abs").seed(2).tries(200)
                .forAll(Gen.ints(-1_000_000, 1_000_000), x -> assertTrue(Math.abs(x) < 500)));
        assertEquals(List.of(500), failure.shrunk());
        PropertyFailure negative = failure(() -> PropertyCheck.named("negative").seed(2).tries(200)
                .forAll(Gen.longs(-1_000_000, 1_000_000), x -> assertTrue(x > -500)));
        assertEquals(List.of(-500L), negative.shrunk());
    }

    @Test
    void aListLosesTheElementsThatDoNotMatterAndKeepsTheOneThatDoes() {
        PropertyFailure failure = failure(() -> PropertyCheck.named("no sevens").seed(3).tries(300)
                .forAll(Gen.ints(0, 100).list(0, 30), values -> assertTrue(!values.contains(7))));
        assertEquals(List.of(List.of(7)), failure.shrunk());
    }

    @Test
    void aListShrinksToTheShortestThenLowestFailingList() {
        PropertyFailure failure = failure(() -> PropertyCheck.named("sum").seed(4).tries(300)
                .forAll(Gen.ints(0, 50).list(0, 20), values -> assertTrue(
                        values.stream().mapToInt(Integer::intValue).sum() < 100)));
        assertEquals(List.of(List.of(50, 50)), failure.shrunk());
    }

    @Test
    void byteArraysShrinkToShortArraysOfZeros() {
        PropertyFailure failure = failure(() -> PropertyCheck.named("bytes").seed(5).tries(300)
                .forAll(Gen.bytes(0, 40), bytes -> {
                    for (int i = 2; i < bytes.length; i++) {
                        assertTrue((bytes[i] & 0xFF) < 10, "byte " + i);
                    }
                }));
        assertEquals("[0, 0, 10]", Arrays.toString((byte[]) failure.shrunk().getFirst()));
    }

    @Test
    void combinatorsShrinkThroughTheChoicesTheyDraw() {
        // flatMap: a length, then a list of exactly that length; map and filter on top.
        Gen<List<Integer>> sized = Gen.ints(1, 10).flatMap(n -> Gen.ints(0, 20).list(n, n));
        PropertyFailure flat = failure(() -> PropertyCheck.named("flatMap").seed(6).tries(300)
                .forAll(sized.filter(list -> !list.isEmpty()).map(List::copyOf),
                        list -> assertTrue(list.stream().allMatch(v -> v <= 5))));
        assertEquals(List.of(List.of(6)), flat.shrunk());

        // oneOf and frequency shrink towards their first alternative.
        Gen<String> either = Gen.oneOf(Gen.just("first"), Gen.ints(0, 9).map(i -> "second " + i));
        Gen<String> weighted = Gen.frequency(Gen.weighted(1, "rare"), Gen.weighted(9, "common"));
        PropertyFailure choice = failure(() -> PropertyCheck.named("oneOf").seed(7).tries(100)
                .forAll(either, weighted, (a, b) -> assertTrue(a.equals("x"))));
        assertEquals(List.of("first", "rare"), choice.shrunk());

        // choose and enums: the first declared.
        PropertyFailure enums = failure(() -> PropertyCheck.named("enums").seed(8).tries(100)
                .forAll(Gen.enums(Thread.State.class), Gen.choose("a", "b", "c"), (state, letter) -> {
                    throw new IllegalStateException("always");
                }));
        assertEquals(List.of(Thread.State.NEW, "a"), enums.shrunk());
    }

    @Test
    void seedsAreNeverLoweredByShrinking() {
        PropertyFailure failure = failure(() -> PropertyCheck.named("seeds").seed(9).tries(10)
                .forAll(Gen.seeds(), Gen.ints(0, 1000), (seed, x) -> assertTrue(x < 10)));
        assertEquals(failure.original().getFirst(), failure.shrunk().getFirst());
        assertEquals(10, failure.shrunk().get(1));
    }

    @Test
    void seedsAreNotDeletedByChunkDeletionEither() {
        // Deleting the seed's choice would shift the flags' choices into its place: another seed, for a property
        // that fails whatever the seed, which the shrinker must not take for a simpler case.
        PropertyFailure failure = failure(() -> PropertyCheck.named("seed chunk").seed(9).tries(50)
                .forAll(Gen.seeds(), Gen.booleans(), Gen.booleans(), (seed, a, b) -> assertTrue(!a && !b)));
        assertEquals(failure.original().getFirst(), failure.shrunk().getFirst(), failure::getMessage);
    }

    @Test
    void onlyFailuresOfTheOriginalKindAreShrunkTo() {
        // Values above 100 fail with an AssertionError, values from 10 to 100 with an IllegalStateException:
        // shrinking a big value must stop at 101, not slide to the other bug at 10.
        PropertyFailure failure = failure(() -> PropertyCheck.named("kinds").seed(10).tries(200)
                .forAll(Gen.ints(1000, 100_000).flatMap(big -> Gen.ints(0, big)), x -> {
                    if (x > 100) {
                        throw new AssertionError("big " + x);
                    }
                    if (x >= 10) {
                        throw new IllegalStateException("medium " + x);
                    }
                }));
        assertEquals(AssertionError.class, failure.getCause().getClass());
        assertEquals(List.of(101), failure.shrunk());
    }

    @Test
    void theSameSeedGivesTheSameTriesAndTheSameShrunkCase() {
        List<Object> first = new ArrayList<>();
        List<Object> second = new ArrayList<>();
        Gen<List<Integer>> lists = Gen.ints(-50, 50).list(0, 10);
        PropertyCheck.named("record").seed(11).tries(50).forAll(lists, first::add);
        PropertyCheck.named("record").seed(11).tries(50).forAll(lists, second::add);
        assertEquals(first, second);
        List<Object> other = new ArrayList<>();
        PropertyCheck.named("record").seed(12).tries(50).forAll(lists, other::add);
        assertNotEquals(first, other);

        PropertyFailure a = failure(() -> PropertyCheck.named("p").seed(13).forAll(lists,
                values -> assertTrue(values.size() < 4)));
        PropertyFailure b = failure(() -> PropertyCheck.named("p").seed(13).forAll(lists,
                values -> assertTrue(values.size() < 4)));
        assertEquals(a.getMessage(), b.getMessage());
        assertEquals(List.of(List.of(0, 0, 0, 0)), a.shrunk());
    }

    @Test
    void theReplayLineRunsTheShrunkCaseAlone() {
        Gen<List<Integer>> lists = Gen.ints(0, 100).list(0, 30);
        PropertyFailure failure = failure(() -> PropertyCheck.named("replayed").seed(14).tries(300)
                .forAll(lists, values -> assertTrue(!values.contains(42))));
        assertTrue(failure.getMessage().contains("replay:   @Property(replay = \"" + failure.replay() + "\")"),
                failure.getMessage());
        List<Object> seen = new ArrayList<>();
        PropertyFailure again = failure(() -> PropertyCheck.named("replayed").replay(failure.replay())
                .forAll(lists, values -> {
                    seen.add(values);
                    assertTrue(!values.contains(42));
                }));
        assertEquals(List.of(List.of(42)), seen, "one run, of the shrunk case");
        assertEquals(failure.shrunk(), again.shrunk());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> PropertyCheck.named("bad").replay("1 x 2"));
        assertTrue(bad.getMessage().contains("'x'"), bad.getMessage());
    }

    @Test
    void theFailureReportsTheShrunkCaseTheOriginalTheSeedAndTheReplayLine() {
        PropertyFailure failure = failure(() -> PropertyCheck.named("report").seed(15).tries(100)
                .parameterNames(List.of("values")).forAll(Gen.ints(0, 100).list(0, 10),
                        values -> assertTrue(values.size() < 3, "too long")));
        String message = failure.getMessage();
        assertTrue(message.startsWith("property report failed on try "), message);
        assertTrue(message.contains("(seed 15)"), message);
        assertTrue(message.contains("\n  shrunk:   values = [0, 0, 0]\n"), message);
        assertTrue(message.contains("\n  original: values = ["), message);
        assertTrue(message.contains("\n  failure:  org.opentest4j.AssertionFailedError: too long"), message);
        assertTrue(message.contains("-Dlockstep.property.seed=15 reruns these tries"), message);
        assertEquals(15, failure.seed());
    }

    @Test
    void theSeedPropertyOverridesTheGivenSeed() {
        System.setProperty(PropertyCheck.SEED_PROPERTY, "77");
        try {
            assertEquals(77, PropertyCheck.named("p").seed(1).tries(3).forAll(Gen.booleans(), b -> { }).seed());
        } finally {
            System.clearProperty(PropertyCheck.SEED_PROPERTY);
        }
        assertEquals(1, PropertyCheck.named("p").seed(1).tries(3).forAll(Gen.booleans(), b -> { }).seed());
    }

    @Test
    void aFailedAssumptionDiscardsTheTryInsteadOfFailingIt() {
        List<Integer> ran = new ArrayList<>();
        PropertyCheck.Report report = PropertyCheck.named("assumed").seed(17).tries(20).forAll(Gen.ints(0, 9), x -> {
            org.junit.jupiter.api.Assumptions.assumeTrue(x % 2 == 0);
            ran.add(x);
        });
        assertEquals(20, report.tries());
        assertTrue(report.discarded() > 0);
        assertTrue(ran.stream().allMatch(x -> x % 2 == 0), ran::toString);
    }

    @Test
    void aFilterThatRejectsEverythingIsReportedNotLoopedOn() {
        AssertionError error = assertThrows(AssertionError.class, () -> PropertyCheck.named("strict").seed(16)
                .tries(10).forAll(Gen.ints(0, 10).filter(x -> x > 10), x -> { }));
        assertTrue(error.getMessage().contains("discarded"), error.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> Gen.ints(5, 4));
        assertTrue(range.getMessage().contains("[5, 4]"), range.getMessage());
    }
}
