package dev.lockstep.testing;

import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Instances of a test class made the way JUnit makes one for a test: its constructor (the enclosing instance for a
 * {@code @Nested} class), then its {@code @BeforeEach} methods (superclass first); {@link #tearDown} runs its
 * {@code @AfterEach} methods (subclass first). For the rerun of {@link SimulationTest#checkDeterminism()} and for
 * each run of a sweep on several threads ({@link Sweep}), which needs an instance JUnit has not made yet. JUnit has
 * no public way to ask for another instance of the current test, hence this; only parameterless constructors and
 * lifecycle methods are supported, and anything else is refused with a message saying so.
 */
final class FreshInstance {
    private FreshInstance() {
    }

    /**
     * An instance like {@code current}, set up: for the determinism rerun of a sweep that runs on JUnit's thread.
     * A {@code @Nested} instance gets JUnit's enclosing instance of this invocation.
     */
    static Object of(ExtensionContext context, Object current) throws Throwable {
        if (current == null) {
            throw new ExtensionConfigurationException("checkDeterminism needs an instance method");
        }
        Class<?> type = current.getClass();
        Object instance;
        try {
            if (type.isMemberClass() && !Modifier.isStatic(type.getModifiers())) {
                List<Object> instances = context.getRequiredTestInstances().getAllInstances();
                Object enclosing = instances.size() >= 2 ? instances.get(instances.size() - 2) : null;
                Constructor<?> constructor = type.getDeclaredConstructor(type.getEnclosingClass());
                constructor.setAccessible(true);
                instance = constructor.newInstance(enclosing);
            } else {
                instance = construct(type);
            }
        } catch (NoSuchMethodException none) {
            throw new ExtensionConfigurationException("checkDeterminism reruns each seed on a new instance of "
                    + type.getSimpleName() + ", which needs a constructor without parameters", none);
        } catch (InvocationTargetException thrown) {
            throw thrown.getCause();
        }
        setUp(instance);
        return instance;
    }

    /**
     * A new instance of a top-level or static nested class, not yet set up; {@link #sharedBetweenRuns} said yes.
     *
     * @throws NoSuchMethodException if it has no parameterless constructor
     * @throws InvocationTargetException if the constructor threw
     */
    static Object construct(Class<?> type) throws ReflectiveOperationException {
        Constructor<?> constructor = type.getDeclaredConstructor();
        constructor.setAccessible(true);
        return constructor.newInstance();
    }

    /** Runs {@code instance}'s {@code @BeforeEach} methods, superclass first, as JUnit does. */
    static void setUp(Object instance) throws Throwable {
        invokeAll(instance, BeforeEach.class, true);
    }

    /**
     * Runs {@code instance}'s {@code @AfterEach} methods, subclass first. As JUnit does, every one runs even if an
     * earlier one threw; the first failure is thrown with the later ones suppressed in it.
     */
    static void tearDown(Object instance) throws Throwable {
        invokeAll(instance, AfterEach.class, false);
    }

    /**
     * Why runs of {@code method} on instances of the test class that this class makes, at once on several threads,
     * would not be what JUnit runs one at a time, or null if they would be: each run needs an instance of its own
     * that holds everything the run keeps, made as JUnit makes one. What JUnit does for its own instance and this
     * class cannot (resolve parameters, apply extensions, inject a {@code @TempDir}) and what every instance
     * shares (the one instance of a {@code PER_CLASS} lifecycle, the enclosing instance of a {@code @Nested}
     * class, a static field that is not final) make the answer no. A static final field that holds a mutable object
     * is shared too and cannot be seen from here: {@link SimulationTest#threads()} says so.
     *
     * @param context the test template's context (for the lifecycle)
     * @param type the test class
     * @param method the test method
     * @return the reason, naming what, or null
     */
    static String sharedBetweenRuns(ExtensionContext context, Class<?> type, Method method) {
        if (context.getTestInstanceLifecycle().orElse(TestInstance.Lifecycle.PER_METHOD)
                == TestInstance.Lifecycle.PER_CLASS) {
            return type.getSimpleName() + " has the PER_CLASS test instance lifecycle: every seed would run on its"
                    + " one instance";
        }
        if (type.isMemberClass() && !Modifier.isStatic(type.getModifiers())) {
            return type.getSimpleName() + " is an inner (@Nested) class: every seed would share its enclosing"
                    + " instance";
        }
        try {
            type.getDeclaredConstructor();
        } catch (NoSuchMethodException none) {
            return "the constructor of " + type.getSimpleName() + " takes parameters, which only JUnit resolves";
        }
        // @SimulationTest itself is meta-annotated with @ExtendWith(SimulationExtension.class): not another one.
        for (ExtendWith extension : AnnotationSupport.findRepeatableAnnotations(method, ExtendWith.class)) {
            if (!Arrays.equals(extension.value(), new Class<?>[] {SimulationExtension.class})) {
                return method.getName() + " registers extensions (@ExtendWith), which JUnit applies to its own"
                        + " instance and thread only";
            }
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Class<?> implemented : c.getInterfaces()) {
                for (Method m : implemented.getMethods()) {
                    if (m.isAnnotationPresent(BeforeEach.class) || m.isAnnotationPresent(AfterEach.class)) {
                        return "the interface " + implemented.getSimpleName() + " declares " + m.getName()
                                + " as a lifecycle method, which only JUnit calls";
                    }
                }
            }
            if (AnnotationSupport.isAnnotated(c, ExtendWith.class)) {
                return c.getSimpleName() + " registers extensions (@ExtendWith), which JUnit applies to its own"
                        + " instance and thread only";
            }
            for (Method m : c.getDeclaredMethods()) {
                boolean lifecycle = m.isAnnotationPresent(BeforeEach.class) || m.isAnnotationPresent(AfterEach.class);
                if (lifecycle && !Modifier.isStatic(m.getModifiers()) && m.getParameterCount() != 0) {
                    return c.getSimpleName() + "." + m.getName() + " takes parameters, which only JUnit resolves";
                }
            }
            for (Field field : c.getDeclaredFields()) {
                if (field.isSynthetic()) {
                    continue; // a coverage tool's probes, say: not the test's state
                }
                if (AnnotationSupport.isAnnotated(field, RegisterExtension.class)
                        || AnnotationSupport.isAnnotated(field, ExtendWith.class)
                        || AnnotationSupport.isAnnotated(field, TempDir.class)) {
                    return c.getSimpleName() + "." + field.getName() + " is filled in by an extension, which JUnit"
                            + " applies to its own instance only";
                }
                int modifiers = field.getModifiers();
                if (Modifier.isStatic(modifiers) && !Modifier.isFinal(modifiers)) {
                    return c.getSimpleName() + "." + field.getName() + " is a static field that is not final: seeds"
                            + " running at once would share it";
                }
            }
        }
        return null;
    }

    /**
     * Whether a class below {@code method}'s own, up to {@code type}, overrides it: JUnit then calls it once, as the
     * override (a reflective call of the overridden method would run the override a second time).
     */
    private static boolean overridden(Method method, Class<?> type) {
        if (Modifier.isPrivate(method.getModifiers())) {
            return false;
        }
        for (Class<?> c = type; c != method.getDeclaringClass(); c = c.getSuperclass()) {
            try {
                c.getDeclaredMethod(method.getName(), method.getParameterTypes());
                return true;
            } catch (NoSuchMethodException notHere) {
                // look further up
            }
        }
        return false;
    }

    private static void invokeAll(Object instance, Class<? extends Annotation> annotation, boolean superclassFirst)
            throws Throwable {
        List<Class<?>> hierarchy = new ArrayList<>();
        for (Class<?> c = instance.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            hierarchy.add(superclassFirst ? 0 : hierarchy.size(), c);
        }
        Throwable failure = null;
        for (Class<?> c : hierarchy) {
            for (Method method : c.getDeclaredMethods()) {
                if (!method.isAnnotationPresent(annotation) || Modifier.isStatic(method.getModifiers())
                        || overridden(method, instance.getClass())) {
                    continue;
                }
                if (method.getParameterCount() != 0) {
                    throw new ExtensionConfigurationException("a @SimulationTest makes instances of "
                            + c.getSimpleName() + " itself (for checkDeterminism's rerun, or for each seed of a sweep"
                            + " on several threads) and calls its @" + annotation.getSimpleName()
                            + " methods itself, so " + method.getName() + " must take no parameters");
                }
                method.setAccessible(true);
                try {
                    method.invoke(instance);
                } catch (InvocationTargetException thrown) {
                    if (failure == null) {
                        failure = thrown.getCause();
                    } else {
                        failure.addSuppressed(thrown.getCause());
                    }
                    if (annotation == BeforeEach.class) {
                        break; // JUnit skips the later @BeforeEach methods once one failed
                    }
                }
            }
            if (failure != null && annotation == BeforeEach.class) {
                break;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
