package dev.lockstep.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.property.FixtureRun.Finished;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;

/** Probes of the harness as a user meets it. */
class HarnessProbeTest {

    private static PropertyFailure failure(Runnable run) {
        return assertThrows(PropertyFailure.class, run::run);
    }

    // ---- generators at their edges

    @Test
    void intEdges() {
        List<Integer> seen = new ArrayList<>();
        PropertyCheck.named("edge").seed(1).tries(300).forAll(Gen.ints(Integer.MIN_VALUE, 0), seen::add);
        PropertyCheck.named("edge").seed(1).tries(300).forAll(Gen.ints(0, Integer.MAX_VALUE), seen::add);
        PropertyCheck.named("edge").seed(1).tries(3)
                .forAll(Gen.ints(Integer.MAX_VALUE, Integer.MAX_VALUE), seen::add);
        assertTrue(seen.contains(Integer.MIN_VALUE) && seen.contains(Integer.MAX_VALUE) && seen.contains(0));
        PropertyFailure f = failure(() -> PropertyCheck.named("min").seed(2).tries(300)
                .forAll(Gen.ints(), x -> assertTrue(x != Integer.MIN_VALUE)));
        assertEquals(List.of(Integer.MIN_VALUE), f.shrunk());
    }

    // ---- shrinking quality

    @Test
    void stringsShrinkToTheShortestLowest() {
        Gen<String> strings = Gen.ints('a', 'z').list(0, 20)
                .map(l -> l.stream().map(c -> String.valueOf((char) (int) c)).collect(Collectors.joining()));
        PropertyFailure f = failure(() -> PropertyCheck.named("str").seed(3).tries(200)
                .forAll(strings, s -> assertTrue(s.length() < 4 || !s.contains("q"))));
        assertEquals(List.of("aaaq"), f.shrunk(), f::getMessage);
    }

    @Test
    void sortedShrinksToOneZero() {
        PropertyFailure f = failure(() -> PropertyCheck.named("sorted").seed(4).tries(200)
                .forAll(Gen.ints(0, 100).list(0, 20), l -> {
                    for (int i = 1; i < l.size(); i++) {
                        assertTrue(l.get(i - 1) <= l.get(i));
                    }
                }));
        assertEquals(List.of(List.of(1, 0)), f.shrunk(), f::getMessage);
    }

    @Test
    void filteredShrinksToTheSmallestAccepted() {
        PropertyFailure f = failure(() -> PropertyCheck.named("odd").seed(5).tries(200)
                .forAll(Gen.ints(0, 10_000).filter(x -> x % 2 == 1), x -> assertTrue(x < 100)));
        assertEquals(List.of(101), f.shrunk(), f::getMessage);
    }

    @Test
    void negativeListsShrink() {
        PropertyFailure f = failure(() -> PropertyCheck.named("neg").seed(6).tries(200)
                .forAll(Gen.ints(-1000, 1000).list(0, 10), l -> assertTrue(l.stream().allMatch(x -> x > -50))));
        assertEquals(List.of(List.of(-50)), f.shrunk(), f::getMessage);
    }

    @Test
    void twoArgumentsShrinkIndependently() {
        PropertyFailure f = failure(() -> PropertyCheck.named("two").seed(7).tries(200)
                .forAll(Gen.ints(0, 1000), Gen.ints(0, 1000), (a, b) -> assertTrue(a + b < 500)));
        List<Object> s = f.shrunk();
        assertEquals(500, (Integer) s.get(0) + (Integer) s.get(1), f::getMessage);
        assertEquals(List.of(0, 500), s, f::getMessage);
    }

    // ---- replay and determinism

    @Test
    void theReplayOfAShrunkCaseFailsTheSameWay() {
        Gen<List<Object>> g = Gen.ints(-100, 100).filter(x -> x != 3).list(0, 10)
                .flatMap(l -> Gen.ints(0, 5).map(k -> List.<Object>of(l, k)));
        PropertyFailure f = failure(() -> PropertyCheck.named("r").seed(8).tries(300)
                .forAll(g, v -> assertTrue(((List<?>) v.get(0)).size() < 3 + (Integer) v.get(1))));
        PropertyFailure again = failure(() -> PropertyCheck.named("r").replay(f.replay())
                .forAll(g, v -> assertTrue(((List<?>) v.get(0)).size() < 3 + (Integer) v.get(1))));
        assertEquals(f.shrunk(), again.shrunk());
    }

    // ---- generator exceptions

    // ---- through JUnit

    static class Lifecycle {
        static int befores;
        static int bodies;

        @org.junit.jupiter.api.BeforeEach
        void before() {
            befores++;
        }

        @Property(tries = 13, seed = 2)
        void counted(@ForAll int x) {
            bodies++;
        }

        @org.junit.jupiter.api.Nested
        class Inner {
            @Property(tries = 4, seed = 2)
            void nested(@ForAll("inner") int x) {
                bodies += 100;
            }

            Gen<Integer> inner() {
                return Gen.ints(0, 3);
            }
        }
    }

    @Test
    void triesAndNested() {
        Lifecycle.befores = 0;
        Lifecycle.bodies = 0;
        List<Finished> finished = FixtureRun.run(Lifecycle.class);
        assertEquals(2, finished.size(), finished::toString);
        finished.forEach(f -> assertEquals(TestExecutionResult.Status.SUCCESSFUL, f.result().getStatus(),
                f::toString));
        assertEquals(413, Lifecycle.bodies);
    }

    static class Timed {
        @Property(tries = 1000, seed = 1)
        @org.junit.jupiter.api.Timeout(value = 200, unit = java.util.concurrent.TimeUnit.MILLISECONDS)
        void slow(@ForAll boolean b) throws InterruptedException {
            Thread.sleep(5);
        }
    }

    @Test
    void aTimeoutCoversTheTries() {
        Finished f = FixtureRun.only(Timed.class);
        assertEquals(TestExecutionResult.Status.FAILED, f.result().getStatus(), f::toString);
    }

    static class Checked {
        @Property(tries = 50, seed = 3)
        void checked(@ForAll("small") int x) throws Exception {
            if (x > 20) {
                throw new java.io.IOException("io " + x);
            }
        }

        static Gen<Integer> small() {
            return Gen.ints(0, 100);
        }

        @Property(tries = 50, seed = 3)
        void error(@ForAll("small") int x) {
            if (x > 20) {
                throw new StackOverflowError("deep " + x);
            }
        }
    }

    @Test
    void checkedExceptionsAndErrorsFailAndShrink() {
        for (Finished f : FixtureRun.run(Checked.class)) {
            assertEquals(TestExecutionResult.Status.FAILED, f.result().getStatus(), f::toString);
            PropertyFailure p = assertInstanceOf(PropertyFailure.class, f.result().getThrowable().get());
            assertEquals(List.of(21), p.shrunk(), p::getMessage);
        }
    }
}
