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

/** @ForAll parameters the docs promise: any type with a named generator, found on the test class. */
class ForAllParameterTest {

    static class PrimitiveDouble {
        @Property(tries = 5, seed = 1)
        void doubles(@ForAll("halves") double x) {
            assertTrue(x >= 0);
        }

        static Gen<Double> halves() {
            return Gen.ints(0, 10).map(i -> i / 2.0);
        }
    }

    @Test
    void aPrimitiveDoubleWithANamedGeneratorIsSupported() {
        Finished f = FixtureRun.only(PrimitiveDouble.class);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, f.result().getStatus(), f::toString);
    }

    abstract static class Contract {
        static final List<Object> seen = new ArrayList<>();

        @Property(tries = 3, seed = 1)
        void holds(@ForAll("values") Object value) {
            seen.add(value);
        }
    }

    static class StringContract extends Contract {
        Gen<Object> values() {
            return Gen.just("s");
        }
    }

    @Test
    void anInheritedPropertyFindsTheGeneratorOfTheTestClass() {
        Contract.seen.clear();
        Finished f = FixtureRun.only(StringContract.class);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, f.result().getStatus(), f::toString);
        assertEquals(List.of("s", "s", "s"), Contract.seen);
    }
}
