package dev.lockstep.sim.os;

import static dev.lockstep.sim.os.FsNodes.collectDurable;
import static dev.lockstep.sim.os.FsNodes.components;
import static dev.lockstep.sim.os.FsNodes.liveBytes;
import static dev.lockstep.sim.os.FsNodes.markDurable;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.CrashReport;
import dev.lockstep.sim.StorageImage;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.os.FsNodes.DirectoryNode;
import dev.lockstep.sim.os.FsNodes.FileNode;
import dev.lockstep.sim.os.FsNodes.Node;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The namespace of a {@link SimFileSystem}: the tree of directories and files from the root, with live and
 * durable entries, and the namespace operations on it (resolving an open, creating and removing entries, listing,
 * restoring from and collecting a {@link StorageImage}, rebuilding after a crash). It changes only nodes and
 * entries: power and handles stay with {@link SimFileSystem}, which calls this after its checks, fault rolls with
 * {@link FsFaults} and capacity with {@link FileStore}. Errors are {@link KernelException}s naming the call and the
 * path, as {@link SimFileSystem} documents them.
 *
 * <p>Creating, removing or renaming an entry (open with {@code O_CREAT}, {@code mkdir}, {@code unlink},
 * {@code rmdir}, {@code rename}) changes only the live entries; an {@code fsync} of that directory makes all its
 * live entries durable. A change not made durable may be lost by a crash: a file whose entry is not durable may
 * disappear even if its data was synced, an unlinked file whose removal is not durable may come back (always under
 * {@link CrashPolicy#ALL_LOST}; by seed, name by name, under the others, as ext4's journal may commit the change
 * without any directory {@code fsync}). Not thread-safe.
 */
final class FsNamespace {

    private DirectoryNode root;
    private long nextInode = 1;

    /** Only the root directory, which is durable. */
    FsNamespace() {
        root = new DirectoryNode(nextInode++);
    }

    DirectoryNode root() {
        return root;
    }

    /**
     * Creates every directory and file of an image, durably.
     *
     * @return the bytes of the files created
     */
    long restore(StorageImage image) {
        long bytes = 0;
        for (String directory : image.directories()) {
            List<String> parts = components(directory);
            DirectoryNode parent = FsNodes.parentOf(root, parts, "restore", directory);
            parent.entries.putIfAbsent(parts.getLast(), new DirectoryNode(nextInode++));
        }
        for (Map.Entry<String, byte[]> file : image.files().entrySet()) {
            List<String> parts = components(file.getKey());
            DirectoryNode parent = FsNodes.parentOf(root, parts, "restore", file.getKey());
            FileNode node = new FileNode(nextInode++);
            byte[] contents = file.getValue();
            node.live.write(0, contents, 0, contents.length);
            node.durable = node.live.copy();
            parent.entries.put(parts.getLast(), node);
            bytes += contents.length;
        }
        markDurable(root);
        return bytes;
    }

    /** What the durable entries reach from the root, each file with its durable bytes. */
    StorageImage durableImage() {
        TreeSet<String> directories = new TreeSet<>();
        TreeMap<String, byte[]> files = new TreeMap<>();
        collectDurable(root, "", directories, files);
        return new StorageImage(directories, files);
    }

    Node lookup(List<String> parts, String call, String path) {
        return FsNodes.lookup(root, parts, call, path);
    }

    /** The node {@code parts} names, or null if nothing does; draws nothing. */
    Node find(List<String> parts, String call, String path) {
        try {
            return lookup(parts, call, path);
        } catch (KernelException e) {
            if (e.errno() == Errno.ENOENT) {
                return null;
            }
            throw e;
        }
    }

    /**
     * The node an {@code open} reaches, created (as a file, its entry not yet durable) if missing and
     * {@code create}. See {@link SimFileSystem#open} for the errors.
     */
    Node open(List<String> parts, String path, boolean create, boolean exclusive, boolean directoryOnly,
            boolean writable) {
        Node node;
        if (parts.isEmpty()) {
            node = root;
        } else {
            DirectoryNode parent = FsNodes.parentOf(root, parts, "open", path);
            node = parent.entries.get(parts.getLast());
            if (node == null) {
                if (!create) {
                    throw new KernelException(Errno.ENOENT, "open", path);
                }
                node = new FileNode(nextInode++);
                parent.entries.put(parts.getLast(), node);
            } else if (create && exclusive) {
                throw new KernelException(Errno.EEXIST, "open", path);
            }
        }
        if (node instanceof DirectoryNode) {
            if (create && exclusive) {
                throw new KernelException(Errno.EEXIST, "open", path);
            }
            if (writable) {
                throw new KernelException(Errno.EISDIR, "open", path);
            }
        } else if (directoryOnly) {
            throw new KernelException(Errno.ENOTDIR, "open", path);
        }
        return node;
    }

    void mkdir(List<String> parts, String path) {
        if (parts.isEmpty()) {
            throw new KernelException(Errno.EEXIST, "mkdir", path);
        }
        DirectoryNode parent = FsNodes.parentOf(root, parts, "mkdir", path);
        if (parent.entries.containsKey(parts.getLast())) {
            throw new KernelException(Errno.EEXIST, "mkdir", path);
        }
        parent.entries.put(parts.getLast(), new DirectoryNode(nextInode++));
    }

    /** Removes a file's entry; returns the file, whose space the caller frees if nothing holds it open. */
    FileNode unlink(List<String> parts, String path) {
        if (parts.isEmpty()) {
            throw new KernelException(Errno.EISDIR, "unlink", path);
        }
        DirectoryNode parent = FsNodes.parentOf(root, parts, "unlink", path);
        Node node = parent.entries.get(parts.getLast());
        if (node == null) {
            throw new KernelException(Errno.ENOENT, "unlink", path);
        }
        if (!(node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "unlink", path);
        }
        parent.entries.remove(parts.getLast());
        file.links = 0;
        return file;
    }

    /**
     * Renames an entry within its directory, replacing what the new name held; see {@link SimFileSystem#rename}
     * for the errors. The two names are recorded as changing together until the directory is synced.
     *
     * @return the file the new name held and no longer does (its space is the caller's to free if nothing holds
     *     it open), or null
     */
    FileNode rename(List<String> fromParts, List<String> toParts, String subject) {
        if (fromParts.isEmpty() || toParts.isEmpty()) {
            throw new KernelException(Errno.EBUSY, "rename", subject);
        }
        DirectoryNode parent = FsNodes.parentOf(root, fromParts, "rename", subject);
        DirectoryNode toParent = FsNodes.parentOf(root, toParts, "rename", subject);
        if (toParent != parent) {
            throw new KernelException(Errno.EXDEV, "rename", subject);
        }
        String from = fromParts.getLast();
        String to = toParts.getLast();
        Node node = parent.entries.get(from);
        if (node == null) {
            throw new KernelException(Errno.ENOENT, "rename", subject);
        }
        Node replaced = parent.entries.get(to);
        if (replaced == node) {
            return null; // rename(2) of a name to itself does nothing
        }
        if (replaced != null) {
            switch (node) {
                case FileNode file when replaced instanceof DirectoryNode ->
                        throw new KernelException(Errno.EISDIR, "rename", subject);
                case DirectoryNode directory when replaced instanceof FileNode ->
                        throw new KernelException(Errno.ENOTDIR, "rename", subject);
                case DirectoryNode directory when !((DirectoryNode) replaced).entries.isEmpty() ->
                        throw new KernelException(Errno.ENOTEMPTY, "rename", subject);
                default -> { }
            }
            replaced.links = 0;
        }
        parent.entries.remove(from);
        parent.entries.put(to, node);
        parent.changeTogether(from, to);
        return replaced instanceof FileNode file ? file : null;
    }

    void rmdir(List<String> parts, String path) {
        if (parts.isEmpty()) {
            throw new KernelException(Errno.EBUSY, "rmdir", path);
        }
        DirectoryNode parent = FsNodes.parentOf(root, parts, "rmdir", path);
        Node node = parent.entries.get(parts.getLast());
        if (node == null) {
            throw new KernelException(Errno.ENOENT, "rmdir", path);
        }
        if (!(node instanceof DirectoryNode directory)) {
            throw new KernelException(Errno.ENOTDIR, "rmdir", path);
        }
        if (!directory.entries.isEmpty()) {
            throw new KernelException(Errno.ENOTEMPTY, "rmdir", path);
        }
        parent.entries.remove(parts.getLast());
        directory.links = 0;
    }

    List<String> list(List<String> parts, String path) {
        Node node = lookup(parts, "list", path);
        if (!(node instanceof DirectoryNode directory)) {
            throw new KernelException(Errno.ENOTDIR, "list", path);
        }
        return List.copyOf(directory.entries.keySet());
    }

    /**
     * Rebuilds the live tree from the durable one (see {@link CrashRecovery}).
     *
     * @return the live bytes of the recovered files
     */
    long crash(CrashPolicy policy, Generator generator, TreeMap<String, List<CrashReport.MutationOutcome>> outcomes) {
        root = CrashRecovery.recoverDirectory(root, "", policy, generator, outcomes);
        return liveBytes(root);
    }
}
