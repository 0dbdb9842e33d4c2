package dev.lockstep.conformance;

import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The engine behind {@link Conformance}: one invocation per {@link RuntimeConfig}, each resolving a
 * {@link Runtimes} parameter that is closed (its directories deleted) after the invocation.
 *
 * <p>The system property {@code lockstep.runtimes} ({@code sim}, {@code uring}, or a comma list of display
 * names without brackets, e.g. {@code sim seed=7 workers=1}) narrows the configurations, for a quick run of
 * one runtime; by default every configuration runs.
 */
public final class RuntimeExtension implements TestTemplateInvocationContextProvider {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RuntimeExtension.class);

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return context.getTestMethod().map(m -> AnnotationSupport.isAnnotated(m, Conformance.class)).orElse(false);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        Conformance conformance = context.getRequiredTestMethod().getAnnotation(Conformance.class);
        int ring = conformance.ring();
        boolean leakChecked = conformance.leavesOpen().isEmpty();
        List<KnownBug> bugs = AnnotationSupport.findRepeatableAnnotations(context.getRequiredTestMethod(),
                KnownBug.class);
        return selected().stream().map(config -> invocation(config, ring, leakChecked, bugs.stream()
                .filter(bug -> bug.runtime() == config.kind()).findFirst().orElse(null)));
    }

    /**
     * The configurations selected by {@code lockstep.runtimes}.
     *
     * @return the configurations to run
     */
    static List<RuntimeConfig> selected() {
        String filter = System.getProperty("lockstep.runtimes", "").trim().toLowerCase(Locale.ROOT);
        if (filter.isEmpty() || filter.equals("all")) {
            return RuntimeConfig.ALL;
        }
        List<String> wanted = Stream.of(filter.split(",")).map(String::trim).toList();
        return RuntimeConfig.ALL.stream().filter(config -> {
            String name = config.displayName().substring(1, config.displayName().length() - 1);
            return wanted.contains(config.kind().name().toLowerCase(Locale.ROOT)) || wanted.contains(name);
        }).toList();
    }

    private static TestTemplateInvocationContext invocation(RuntimeConfig config, int ring, boolean leakChecked,
                                                            KnownBug bug) {
        return new TestTemplateInvocationContext() {
            @Override
            public String getDisplayName(int invocationIndex) {
                return config.displayName();
            }

            @Override
            public List<Extension> getAdditionalExtensions() {
                ExecutionCondition knownBug = extension -> bug == null
                        || "run".equals(System.getProperty("lockstep.knownBugs"))
                        ? ConditionEvaluationResult.enabled("no known bug on " + config.kind())
                        : ConditionEvaluationResult.disabled(bug.value());
                return List.of(knownBug, new ParameterResolver() {
                    @Override
                    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
                        return parameter.getParameter().getType() == Runtimes.class;
                    }

                    @Override
                    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
                        Runtimes runtimes = new Runtimes(config, ring, leakChecked);
                        extension.getStore(NAMESPACE).put(Runtimes.class, (AutoCloseable) runtimes::close);
                        return runtimes;
                    }
                });
            }
        };
    }
}
