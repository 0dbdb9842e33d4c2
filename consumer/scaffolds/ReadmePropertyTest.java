import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.property.ForAll;
import dev.lockstep.property.Gen;
import dev.lockstep.property.Property;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.SimGenerators;
import dev.lockstep.testing.Simulations;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** The README's property, run as a property; and compiled as the README's snippet says, its parameters named. */
class ReadmePropertyTest {
    // README: @Property(tries = 30, seed = 7)

    @Test
    void theBuildKeepsParameterNamesForTheReport() throws Exception {
        Method property = ReadmePropertyTest.class.getDeclaredMethod("writesNeverFail", long.class, FaultConfig.class);
        assertTrue(property.getParameters()[0].isNamePresent(),
                "compiled without -parameters: a failing property's report would say arg0 instead of seed");
    }
}
