package dev.lockstep.property;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * The JUnit 5 extension behind {@link Property}. JUnit resolves each {@link ForAll} parameter to a placeholder
 * (the values exist only per try); the interceptor then skips JUnit's own single call and runs the method once
 * per try through {@link PropertyCheck}, on the same test instance and thread.
 */
public final class PropertyExtension implements ParameterResolver, InvocationInterceptor {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.isAnnotated(ForAll.class);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        // A placeholder only: the default of a primitive (any primitive a named generator gives), else null.
        return type.isPrimitive() ? java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(type, 1), 0)
                : null;
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext context) throws Throwable {
        Method method = call.getExecutable();
        Property property = method.getAnnotation(Property.class);
        if (property == null) {
            invocation.proceed();
            return;
        }
        invocation.skip();
        Object target = call.getTarget().orElse(null);
        List<Gen<?>> gens = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Parameter parameter : method.getParameters()) {
            ForAll forAll = parameter.getAnnotation(ForAll.class);
            if (forAll == null) {
                throw new ExtensionConfigurationException("parameter " + parameter.getName() + " of @Property "
                        + method.getName() + " needs @ForAll: every parameter of a property is drawn");
            }
            // The class JUnit runs (a subclass, for a property inherited from an abstract test), not the declaring one.
            gens.add(generator(context.getRequiredTestClass(), target, parameter, forAll));
            names.add(parameter.getName());
        }
        method.setAccessible(true);
        String name = context.getRequiredTestClass().getSimpleName() + "." + method.getName();
        PropertyCheck.Report report = PropertyCheck.named(name).tries(property.tries()).seed(property.seed())
                .shrinkLimit(property.shrinkLimit()).replay(property.replay()).parameterNames(names)
                .check(gens, arguments -> {
                    try {
                        method.invoke(target, arguments.toArray());
                    } catch (InvocationTargetException thrown) {
                        throw thrown.getCause();
                    }
                });
        System.out.println(report);
        context.publishReportEntry(PropertyCheck.SEED_PROPERTY, Long.toString(report.seed()));
    }

    private static Gen<?> generator(Class<?> testClass, Object target, Parameter parameter, ForAll forAll)
            throws ReflectiveOperationException {
        if (!forAll.value().isEmpty()) {
            Method provider = find(testClass, forAll.value());
            if (provider == null || provider.getParameterCount() != 0 || !Gen.class.isAssignableFrom(
                    provider.getReturnType())) {
                throw new ExtensionConfigurationException("@ForAll(\"" + forAll.value() + "\") on parameter "
                        + parameter.getName() + ": " + testClass.getSimpleName() + " has no method "
                        + forAll.value() + "() returning a Gen");
            }
            provider.setAccessible(true);
            Object gen = provider.invoke(Modifier.isStatic(provider.getModifiers()) ? null : target);
            if (gen == null) {
                throw new ExtensionConfigurationException(forAll.value() + "() returned null, not a Gen");
            }
            return (Gen<?>) gen;
        }
        Class<?> type = parameter.getType();
        if (type == int.class || type == Integer.class) {
            return Gen.ints();
        }
        if (type == long.class || type == Long.class) {
            return Gen.longs();
        }
        if (type == boolean.class || type == Boolean.class) {
            return Gen.booleans();
        }
        if (type == byte[].class) {
            return Gen.bytes(0, 64);
        }
        if (type.isEnum()) {
            return enums(type);
        }
        throw new ExtensionConfigurationException("@ForAll on parameter " + parameter.getName() + " of type "
                + type.getSimpleName() + ": no default generator for it; name a method, @ForAll(\"method\")");
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Gen<?> enums(Class<?> type) {
        return Gen.enums((Class) type);
    }

    private static Method find(Class<?> type, String name) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                if (method.getName().equals(name) && method.getParameterCount() == 0) {
                    return method;
                }
            }
        }
        return null;
    }
}
