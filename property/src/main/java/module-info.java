/**
 * The property harness: {@code @Property} methods whose {@code @ForAll} parameters are drawn by {@code Gen}s and
 * shrunk by their choice sequence. A JUnit Jupiter extension, so JUnit reads and instantiates its classes.
 */
module lockstep.property {
    requires transitive org.junit.jupiter.api;

    exports dev.lockstep.property;
    opens dev.lockstep.property to org.junit.platform.commons;
}
