package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.StorageImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The path and node model of {@link SimFileSystem}: files and directories as nodes, each file's journal of
 * unsynced mutations, and how a path resolves to a node. Paths are absolute and {@code /}-separated; a relative
 * path is resolved from the root, empty and {@code .} components are ignored and {@code ..} goes up. There are no
 * links: a node has one name at a time (a rename moves it).
 *
 * <p>Every directory has <em>live</em> entries (what lookups see) and <em>durable</em> entries (what a crash
 * keeps); every file a live image, a durable image and its journal. What happens to them over time is
 * {@link PageCache}'s (syncs, failed syncs) and {@link CrashRecovery}'s (crashes). Not thread-safe.
 */
final class FsNodes {

    private FsNodes() {
    }

    abstract static sealed class Node permits FileNode, DirectoryNode {
        final long inode;
        /** 1 while a directory entry names it; 0 once removed. */
        int links = 1;
        int opens;

        Node(long inode) {
            this.inode = inode;
        }
    }
    static final class FileNode extends Node {
        ByteImage live = new ByteImage();
        ByteImage durable = new ByteImage();
        final List<Mutation> unsynced = new ArrayList<>();
        SimFileSystem.Handle lockOwner;

        FileNode(long inode) {
            super(inode);
        }

        boolean counted() {
            return links > 0 || opens > 0;
        }
    }
    static final class DirectoryNode extends Node {
        final TreeMap<String, Node> entries = new TreeMap<>();
        TreeMap<String, Node> durableEntries = new TreeMap<>();
        /**
         * Names whose changes since the last {@code fsync} a crash keeps or loses together: the two names of a
         * rename (ext4 journals a rename as one change), merged when a later rename touches either of them.
         * Disjoint; empty once the entries are durable.
         */
        final List<java.util.TreeSet<String>> changedTogether = new ArrayList<>();

        DirectoryNode(long inode) {
            super(inode);
        }

        /** An {@code fsync} of this directory: every live entry is durable, nothing is pending together. */
        void makeEntriesDurable() {
            durableEntries = new TreeMap<>(entries);
            changedTogether.clear();
        }

        /** Records that the changes of {@code first} and {@code second} persist together or not at all. */
        void changeTogether(String first, String second) {
            java.util.TreeSet<String> merged = new java.util.TreeSet<>(List.of(first, second));
            for (java.util.Iterator<java.util.TreeSet<String>> groups = changedTogether.iterator();
                    groups.hasNext(); ) {
                java.util.TreeSet<String> group = groups.next();
                if (group.contains(first) || group.contains(second)) {
                    merged.addAll(group);
                    groups.remove();
                }
            }
            changedTogether.add(merged);
        }

        /** The group {@code name} changes with, or null if it changes alone. */
        java.util.TreeSet<String> groupOf(String name) {
            for (java.util.TreeSet<String> group : changedTogether) {
                if (group.contains(name)) {
                    return group;
                }
            }
            return null;
        }
    }
    sealed interface Mutation permits Write, Resize {
    }
    record Write(long offset, byte[] data, boolean durable) implements Mutation {
    }
    record Resize(long size) implements Mutation {
    }

    static List<String> components(String path) {
        Objects.requireNonNull(path, "path");
        List<String> parts = new ArrayList<>();
        for (String part : path.split("/", -1)) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (!parts.isEmpty()) {
                    parts.removeLast();
                }
                continue;
            }
            parts.add(part);
        }
        return parts;
    }

    static String normalized(List<String> parts) {
        return parts.isEmpty() ? "/" : "/" + String.join("/", parts);
    }

    /** The directory holding the last component; throws ENOENT or ENOTDIR for a bad ancestor. */
    static DirectoryNode parentOf(DirectoryNode root, List<String> parts, String call, String path) {
        DirectoryNode directory = root;
        for (int i = 0; i < parts.size() - 1; i++) {
            Node child = directory.entries.get(parts.get(i));
            if (child == null) {
                throw new KernelException(Errno.ENOENT, call, path);
            }
            if (!(child instanceof DirectoryNode childDirectory)) {
                throw new KernelException(Errno.ENOTDIR, call, path);
            }
            directory = childDirectory;
        }
        return directory;
    }

    /** The node a path names; throws ENOENT or ENOTDIR. */
    static Node lookup(DirectoryNode root, List<String> parts, String call, String path) {
        if (parts.isEmpty()) {
            return root;
        }
        Node node = parentOf(root, parts, call, path).entries.get(parts.getLast());
        if (node == null) {
            throw new KernelException(Errno.ENOENT, call, path);
        }
        return node;
    }

    /** Makes every live entry below {@code directory} durable. */
    static void markDurable(DirectoryNode directory) {
        directory.makeEntriesDurable();
        for (Node child : directory.entries.values()) {
            if (child instanceof DirectoryNode nested) {
                markDurable(nested);
            }
        }
    }

    /** Collects what the durable entries below {@code directory} reach, for a {@link StorageImage}. */
    static void collectDurable(DirectoryNode directory, String path, java.util.Set<String> directories,
            Map<String, byte[]> files) {
        for (Map.Entry<String, Node> entry : directory.durableEntries.entrySet()) {
            String childPath = path + "/" + entry.getKey();
            switch (entry.getValue()) {
                case DirectoryNode nested -> {
                    directories.add(childPath);
                    collectDurable(nested, childPath, directories, files);
                }
                case FileNode file -> files.put(childPath, file.durable.toArray());
            }
        }
    }

    /** The live bytes of every file below {@code directory}. */
    static long liveBytes(DirectoryNode directory) {
        long total = 0;
        for (Node child : directory.entries.values()) {
            total += switch (child) {
                case DirectoryNode nested -> liveBytes(nested);
                case FileNode file -> file.live.size();
            };
        }
        return total;
    }
}
