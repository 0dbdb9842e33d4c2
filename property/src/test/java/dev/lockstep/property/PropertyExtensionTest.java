package dev.lockstep.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.property.FixtureRun.Finished;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;

/** {@code @Property} as JUnit runs it: tries, named and default generators, the failure report, the seed. */
class PropertyExtensionTest {

    /** Run through the launcher only (the name matches no build pattern). */
    static class Fixture {
        static final List<String> seen = new ArrayList<>();

        enum Colour { RED, GREEN }

        @Property(tries = 7, seed = 3)
        void passes(@ForAll("small") int small, @ForAll Colour colour, @ForAll boolean flag, @ForAll long any) {
            seen.add(small + " " + colour + " " + flag);
            assertTrue(small >= 0 && small <= 9);
        }

        static Gen<Integer> small() {
            return Gen.ints(0, 9);
        }

        @Property(tries = 100, seed = 5)
        void failsForLongLists(@ForAll("lists") List<Integer> values) {
            assertTrue(values.size() < 2, "too long");
        }

        Gen<List<Integer>> lists() {
            return Gen.ints(0, 9).list(0, 10);
        }

        @Property(replay = "1 3 0")
        void replays(@ForAll("lists") List<Integer> values) {
            seen.add("replayed " + values);
        }
    }

    @Test
    void propertiesRunTheirTriesAndAFailureIsShrunkAndReported() {
        Fixture.seen.clear();
        List<Finished> finished = FixtureRun.run(Fixture.class);
        assertEquals(3, finished.size(), finished::toString);
        for (Finished f : finished) {
            if (f.name().startsWith("passes")) {
                assertEquals(TestExecutionResult.Status.SUCCESSFUL, f.result().getStatus(), f::toString);
            } else if (f.name().startsWith("replays")) {
                assertEquals(TestExecutionResult.Status.SUCCESSFUL, f.result().getStatus(), f::toString);
            } else {
                assertEquals(TestExecutionResult.Status.FAILED, f.result().getStatus());
                PropertyFailure failure = assertInstanceOf(PropertyFailure.class, f.result().getThrowable().get());
                assertEquals(List.of(List.of(0, 0)), failure.shrunk());
                assertTrue(failure.getMessage().contains("shrunk:   values = [0, 0]"), failure.getMessage());
                assertTrue(failure.getMessage().contains("property Fixture.failsForLongLists failed"),
                        failure.getMessage());
            }
        }
        assertEquals(8, Fixture.seen.size(), Fixture.seen::toString);
        assertTrue(Fixture.seen.contains("replayed [3]"), Fixture.seen::toString);
        List<String> again = Fixture.seen.stream().filter(s -> !s.startsWith("replayed")).toList();
        assertEquals(7, again.size());
        Fixture.seen.clear();
        FixtureRun.run(Fixture.class);
        assertEquals(again, Fixture.seen.stream().filter(s -> !s.startsWith("replayed")).toList(),
                "the same seed draws the same tries");
    }
}
