package dev.lockstep.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Edges of the run loop and of the choices: certain flips, many tries, empty enums. */
class ChoicesEdgeTest {

    @Test
    void aCertainFlipIsNotShrunkToTheOtherSide() {
        // flip(1.0) is true in every try; the shrunk case must be one a try can draw.
        Gen<Boolean> always = choices -> choices.flip(1.0);
        PropertyFailure f = assertThrows(PropertyFailure.class, () -> PropertyCheck.named("forced").seed(1)
                .tries(100).forAll(always, Gen.ints(0, 100), (b, x) -> assertTrue(b && x < 10, b + " " + x)));
        assertEquals(List.of(true, 10), f.shrunk(), f::getMessage);
        PropertyFailure again = assertThrows(PropertyFailure.class, () -> PropertyCheck.named("forced")
                .replay("0 10").forAll(always, Gen.ints(0, 100), (b, x) -> assertTrue(b && x < 10, b + " " + x)));
        assertEquals(List.of(true, 10), again.shrunk(), "a replay does not override a certain flip either");
    }

    @Test
    void aDiscardDoesNotEndARunOfManyTries() {
        // 5 * tries overflowed to a negative limit, so the first discard ended the run as "filters reject too much".
        int[] ran = {0};
        PropertyFailure f = assertThrows(PropertyFailure.class, () -> PropertyCheck.named("many").seed(1)
                .tries(500_000_000).shrinkLimit(0).forAll(Gen.ints(0, 9), x -> {
                    org.junit.jupiter.api.Assumptions.assumeTrue(x != 3);
                    if (++ran[0] > 50) {
                        throw new IllegalStateException("enough");
                    }
                }));
        assertEquals(IllegalStateException.class, f.getCause().getClass());
    }

    enum Empty { }

    @Test
    void anEmptyEnumIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Gen.enums(Empty.class));
        assertTrue(e.getMessage().contains("Empty"), e.getMessage());
    }

    @Test
    void nullIsAChoiceLikeAnyOtherAndANullAlternativeIsNamed() {
        // choose copied its values with List.copyOf, which threw a NullPointerException without a message.
        java.util.Set<String> seen = new java.util.HashSet<>();
        PropertyCheck.named("nulls").seed(3).tries(60).forAll(Gen.choose("a", null), seen::add);
        assertTrue(seen.contains(null) && seen.contains("a"), seen::toString);
        NullPointerException alternative = assertThrows(NullPointerException.class,
                () -> Gen.oneOf(Gen.ints(0, 1), null));
        assertEquals("alternative 1 of oneOf is null", alternative.getMessage());
    }

    @Test
    void aRunWhoseAssumptionsDiscardEveryTrySaysSo() {
        AssertionError e = assertThrows(AssertionError.class, () -> PropertyCheck.named("never").seed(1).tries(10)
                .forAll(Gen.ints(0, 9), x -> org.junit.jupiter.api.Assumptions.assumeTrue(x > 100)));
        assertTrue(e.getMessage().contains("filters or assumptions reject too much"), e.getMessage());
    }
}
