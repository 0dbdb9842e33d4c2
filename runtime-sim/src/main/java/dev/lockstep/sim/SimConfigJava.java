package dev.lockstep.sim;

import dev.lockstep.ReceiveLimits;
import dev.lockstep.sim.os.SimKernel;

/**
 * The Java source that builds a {@link SimConfig} ({@link SimConfig#toJava()}): what a replay line prints, and what
 * {@link SimConfig#configHash()} hashes, so its text for a given configuration must not change. Fields at their
 * defaults are left out, except the seed, workers, ring size, start and time limit.
 */
final class SimConfigJava {
    private SimConfigJava() {
    }

    /**
     * A Java expression of type {@code SimConfig} that builds {@code config}.
     *
     * @param config the configuration
     * @return the expression
     */
    static String of(SimConfig config) {
        StringBuilder java = new StringBuilder("SimConfig.builder().seed(").append(config.seed())
                .append("L).workers(").append(config.workers()).append(").ringEntries(").append(config.ringEntries())
                .append(").startNanos(").append(config.startNanos()).append("L).timeLimit(Duration.ofNanos(")
                .append(config.timeLimitNanos()).append("L))");
        if (!config.storageFaults().equals(StorageFaults.NONE)) {
            java.append(".storageFaults(").append(storageFaultsJava(config.storageFaults())).append(')');
        }
        if (!config.kernelBehavior().equals(KernelBehavior.DEFAULT)) {
            KernelBehavior k = config.kernelBehavior();
            java.append(".kernelBehavior(new KernelBehavior(").append(k.maxRingEntries()).append(", ")
                    .append(k.minLatencyNanos()).append("L, ").append(k.maxLatencyNanos()).append("L, ")
                    .append(k.shortReadRate()).append(", ").append(k.shortWriteRate()).append(", ")
                    .append(k.spuriousAgainRate()).append(", ").append(k.spuriousInterruptRate()).append(", ")
                    .append(k.cancelRaceRate()).append(", ").append(k.minCallLatencyNanos()).append("L, ")
                    .append(k.maxCallLatencyNanos()).append("L, ").append(k.minSyncCallLatencyNanos()).append("L, ")
                    .append(k.maxSyncCallLatencyNanos()).append("L, ").append(k.inlineCompletionRate()).append("))");
        }
        NetworkConfig network = config.network();
        if (!network.equals(NetworkConfig.DEFAULT)) {
            java.append(".network(new NetworkConfig(new LinkProfile(").append(network.defaultLink().latencyNanos())
                    .append("L, ").append(network.defaultLink().jitterNanos()).append("L), ")
                    .append(network.connectTimeoutNanos()).append("L, ").append(network.breakRate()).append("))");
        }
        if (config.crashPolicy() != CrashPolicy.ALL_LOST) {
            java.append(".crashPolicy(CrashPolicy.").append(config.crashPolicy().name()).append(')');
        }
        if (config.crashWithinNanos() != 0) {
            java.append(".crashWithin(Duration.ofNanos(").append(config.crashWithinNanos()).append("L))");
        }
        String storageRoot = config.storageRoot();
        if (!storageRoot.equals(SimConfig.DEFAULT_STORAGE_ROOT)) {
            java.append(".storageRoot(\"").append(storageRoot.replace("\\", "\\\\").replace("\"", "\\\""))
                    .append("\")");
        }
        if (config.failOnLeaks() != SimConfig.Builder.DEFAULT_FAIL_ON_LEAKS) {
            java.append(".failOnLeaks(").append(config.failOnLeaks()).append(')');
        }
        if (config.scheduling() != Scheduling.INTERLEAVED) {
            java.append(".scheduling(Scheduling.").append(config.scheduling().name()).append(')');
        }
        if (config.openFileLimit() != SimKernel.MAX_FDS) {
            java.append(".openFileLimit(").append(config.openFileLimit()).append(')');
        }
        FaultPoints faultPoints = config.faultPoints();
        if (!faultPoints.equals(FaultPoints.DEFAULT)) {
            java.append(".faultPoints(new FaultPoints(").append(faultPoints.enableProbability()).append(", ")
                    .append(faultPoints.fireProbability()).append("))");
        }
        if (config.priorities().on()) {
            java.append(".priorities(Priorities.of(").append(config.priorities().depth()).append(", ")
                    .append(config.priorities().steps()).append("L))");
        }
        if (!config.decisionChain().segments().isEmpty()) {
            java.append(".decisionChain(DecisionChain.parse(\"").append(config.decisionChain()).append("\"))");
        }
        ReceiveLimits receiveLimits = config.receiveLimits();
        if (!receiveLimits.equals(ReceiveLimits.DEFAULT)) {
            java.append(".receiveLimits(new ReceiveLimits(").append(receiveLimits.perConnectionBytes()).append(", ")
                    .append(receiveLimits.perRunnerBytes()).append("L))");
        }
        return java.append(".build()").toString();
    }

    private static String storageFaultsJava(StorageFaults faults) {
        StringBuilder java = new StringBuilder("StorageFaults.builder()");
        rate(java, "openRate", faults.openRate());
        rate(java, "readRate", faults.readRate());
        rate(java, "writeRate", faults.writeRate());
        rate(java, "syncRate", faults.syncRate());
        rate(java, "resizeRate", faults.resizeRate());
        rate(java, "removeRate", faults.removeRate());
        rate(java, "scanRate", faults.scanRate());
        rate(java, "partialWriteRate", faults.partialWriteRate());
        if (faults.syncFailure() != SyncFailureModel.LINUX) {
            java.append(".syncFailure(SyncFailureModel.").append(faults.syncFailure().name()).append(')');
        }
        if (faults.capacityBytes() != Long.MAX_VALUE) {
            java.append(".capacityBytes(").append(faults.capacityBytes()).append("L)");
        }
        return java.append(".build()").toString();
    }

    private static void rate(StringBuilder java, String name, double value) {
        if (value != 0) {
            java.append('.').append(name).append('(').append(value).append(')');
        }
    }
}
