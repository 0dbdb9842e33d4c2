package dev.lockstep.sim.os;

import static dev.lockstep.sim.os.PageCache.applyWrite;
import static dev.lockstep.sim.os.PageCache.merged;
import static dev.lockstep.sim.os.PageCache.sectors;
import static dev.lockstep.sim.os.PageCache.subset;

import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.CrashReport;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.FsNodes.DirectoryNode;
import dev.lockstep.sim.os.FsNodes.FileNode;
import dev.lockstep.sim.os.FsNodes.Mutation;
import dev.lockstep.sim.os.FsNodes.Node;
import dev.lockstep.sim.os.FsNodes.Resize;
import dev.lockstep.sim.os.FsNodes.Write;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Crash application for {@link SimFileSystem}: the tree a restart finds, rebuilt from the durable directory
 * entries, each surviving file its durable image plus what the {@link CrashPolicy} keeps of its journal (draws
 * at {@link Site#CRASH_PREFIX}, {@link Site#CRASH_SUBSET} and {@link Site#CRASH_TEAR}, files in path order).
 */
final class CrashRecovery {

    private CrashRecovery() {
    }

    /**
     * Rebuilds a directory from its durable entries, recursively: the tree a restart finds. Under
     * {@link CrashPolicy#ALL_LOST} every entry created, removed or replaced since the directory's last
     * {@code fsync} is lost; under {@link CrashPolicy#PREFIX} and {@link CrashPolicy#SUBSET} each such name keeps
     * its durable entry or its live one by seed (a draw at {@link Site#CRASH_ENTRY} per changed name, in name
     * order), as on ext4, whose journal commits a directory change with its next transaction, directory synced
     * or not. The names of a rename are one change ({@link DirectoryNode#changedTogether}): both keep their
     * durable entries or both their live ones, on one draw.
     */
    static DirectoryNode recoverDirectory(DirectoryNode old, String path, CrashPolicy policy, Generator generator,
            Map<String, List<CrashReport.MutationOutcome>> outcomes) {
        DirectoryNode recovered = new DirectoryNode(old.inode);
        for (Map.Entry<String, Node> entry : survivingEntries(old, policy, generator).entrySet()) {
            String childPath = path + "/" + entry.getKey();
            Node child = switch (entry.getValue()) {
                case DirectoryNode directory -> recoverDirectory(directory, childPath, policy, generator, outcomes);
                case FileNode file -> recoverFile(file, childPath, policy, generator, outcomes);
            };
            recovered.entries.put(entry.getKey(), child);
        }
        recovered.durableEntries = new TreeMap<>(recovered.entries);
        return recovered;
    }

    /**
     * The entries a crash leaves in a directory: its durable ones, with each name changed since its last
     * {@code fsync} set to its live entry (or removed) where the policy and the seed say the change persisted.
     * No draw when nothing changed or under {@link CrashPolicy#ALL_LOST}.
     */
    private static TreeMap<String, Node> survivingEntries(DirectoryNode old, CrashPolicy policy,
            Generator generator) {
        if (policy == CrashPolicy.ALL_LOST || old.entries.equals(old.durableEntries)) {
            return old.durableEntries;
        }
        TreeMap<String, Node> surviving = new TreeMap<>(old.durableEntries);
        java.util.TreeSet<String> names = new java.util.TreeSet<>(old.durableEntries.keySet());
        names.addAll(old.entries.keySet());
        // A rename's names persist together: one draw for the group, at its first changed name.
        TreeMap<String, Boolean> groupKept = new TreeMap<>(); // by the group's first name
        for (String name : names) {
            Node live = old.entries.get(name);
            if (live == old.durableEntries.get(name)) {
                continue;
            }
            java.util.TreeSet<String> group = old.groupOf(name);
            boolean kept = group == null ? generator.nextInt(Site.CRASH_ENTRY, 2) != 0
                    : groupKept.computeIfAbsent(group.first(), drawn -> generator.nextInt(Site.CRASH_ENTRY, 2) != 0);
            if (!kept) {
                continue;
            }
            if (live == null) {
                surviving.remove(name);
            } else {
                surviving.put(name, live);
            }
        }
        return surviving;
    }

    /** A file's durable image plus what the policy keeps of its journal. */
    private static FileNode recoverFile(FileNode old, String path, CrashPolicy policy, Generator generator,
            Map<String, List<CrashReport.MutationOutcome>> outcomes) {
        ByteImage image = old.durable.copy();
        int volatileCount = 0;
        for (Mutation mutation : old.unsynced) {
            if (!(mutation instanceof Write write && write.durable())) {
                volatileCount++;
            }
        }
        // PREFIX: mutations [0, keptPrefix) survive whole, mutation keptPrefix may be torn, the rest are lost.
        int keptPrefix = policy == CrashPolicy.PREFIX ? generator.nextInt(Site.CRASH_PREFIX, volatileCount + 1) : 0;
        List<CrashReport.MutationOutcome> fates = new ArrayList<>(old.unsynced.size());
        int volatileIndex = 0;
        for (Mutation mutation : old.unsynced) {
            switch (mutation) {
                case Write write when write.durable() -> fates.add(applyWrite(image, write, sectors(write)));
                case Write write -> {
                    List<CrashReport.Range> survived = switch (policy) {
                        case ALL_LOST -> List.of();
                        case PREFIX -> volatileIndex < keptPrefix ? sectors(write)
                                : volatileIndex == keptPrefix ? tornPrefix(write, generator) : List.of();
                        case SUBSET -> subset(write, generator, Site.CRASH_SUBSET, Site.CRASH_TEAR);
                    };
                    fates.add(applyWrite(image, write, survived));
                    volatileIndex++;
                }
                case Resize resize -> {
                    boolean survives = switch (policy) {
                        case ALL_LOST -> false;
                        case PREFIX -> volatileIndex < keptPrefix;
                        case SUBSET -> generator.nextInt(Site.CRASH_SUBSET, 2) == 1;
                    };
                    if (survives) {
                        image.resize(resize.size());
                    }
                    fates.add(new CrashReport.MutationOutcome(CrashReport.Kind.RESIZE, resize.size(), 0, false,
                            survives ? List.of(new CrashReport.Range(resize.size(), 0)) : List.of()));
                    volatileIndex++;
                }
            }
        }
        if (!fates.isEmpty()) {
            outcomes.put(path, fates);
        }
        FileNode recovered = new FileNode(old.inode);
        recovered.live = image;
        recovered.durable = image.copy();
        return recovered;
    }

    /** A seeded number of leading sectors, strictly fewer than all of them (all would be a longer prefix). */
    private static List<CrashReport.Range> tornPrefix(Write write, Generator generator) {
        List<CrashReport.Range> pieces = sectors(write);
        if (pieces.isEmpty()) {
            return pieces;
        }
        int kept = generator.nextInt(Site.CRASH_TEAR, pieces.size());
        return merged(pieces.subList(0, kept));
    }
}
