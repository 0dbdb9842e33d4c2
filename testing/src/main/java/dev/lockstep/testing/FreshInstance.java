package dev.lockstep.testing;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A second instance of a test class for the rerun of {@link SimulationTest#checkDeterminism()}, made the way JUnit
 * made the first: its constructor (the enclosing instance for a {@code @Nested} class), then its
 * {@code @BeforeEach} methods (superclass first); {@link #tearDown} runs its {@code @AfterEach} methods. JUnit has
 * no public way to ask for another instance of the current test, hence this; only parameterless constructors and
 * lifecycle methods are supported, and anything else is refused with a message saying so.
 */
final class FreshInstance {
    private FreshInstance() {
    }

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
                Constructor<?> constructor = type.getDeclaredConstructor();
                constructor.setAccessible(true);
                instance = constructor.newInstance();
            }
        } catch (NoSuchMethodException none) {
            throw new ExtensionConfigurationException("checkDeterminism reruns each seed on a new instance of "
                    + type.getSimpleName() + ", which needs a constructor without parameters", none);
        } catch (InvocationTargetException thrown) {
            throw thrown.getCause();
        }
        invokeAll(instance, BeforeEach.class, true);
        return instance;
    }

    static void tearDown(Object instance) throws Throwable {
        invokeAll(instance, AfterEach.class, false);
    }

    private static void invokeAll(Object instance, Class<? extends java.lang.annotation.Annotation> annotation,
                                  boolean superclassFirst) throws Throwable {
        List<Class<?>> hierarchy = new ArrayList<>();
        for (Class<?> c = instance.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            hierarchy.add(superclassFirst ? 0 : hierarchy.size(), c);
        }
        for (Class<?> c : hierarchy) {
            for (Method method : c.getDeclaredMethods()) {
                if (!method.isAnnotationPresent(annotation) || Modifier.isStatic(method.getModifiers())) {
                    continue;
                }
                if (method.getParameterCount() != 0) {
                    throw new ExtensionConfigurationException("checkDeterminism reruns each seed on a new instance"
                            + " and calls its @" + annotation.getSimpleName() + " methods itself, so "
                            + method.getName() + " must take no parameters");
                }
                method.setAccessible(true);
                try {
                    method.invoke(instance);
                } catch (InvocationTargetException thrown) {
                    throw thrown.getCause();
                }
            }
        }
    }
}
