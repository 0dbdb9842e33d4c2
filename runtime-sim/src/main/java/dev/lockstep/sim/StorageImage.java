package dev.lockstep.sim;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The durable contents of a simulated disk: every directory and every file reachable through durable directory
 * entries, with the bytes that survived. What a {@link Checkpoint} carries from a crashed run to the next one;
 * immutable.
 *
 * @param directories the path of every directory but the root, sorted
 * @param files the path and contents of every file, sorted by path
 */
public record StorageImage(SortedSet<String> directories, SortedMap<String, byte[]> files) {

    /** A disk with nothing on it but the root directory. */
    public static final StorageImage EMPTY = new StorageImage(new TreeSet<>(), new TreeMap<>());

    /**
     * Copies everything, so the image cannot change after the fact.
     */
    public StorageImage {
        directories = Collections.unmodifiableSortedSet(new TreeSet<>(directories));
        TreeMap<String, byte[]> copy = new TreeMap<>();
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            copy.put(file.getKey(), file.getValue().clone());
        }
        files = Collections.unmodifiableSortedMap(copy);
    }

    /**
     * The contents of one file.
     *
     * @param path its absolute path
     * @return a copy of its bytes, or null if there is no such file
     */
    public byte[] file(String path) {
        byte[] bytes = files.get(path);
        return bytes == null ? null : bytes.clone();
    }

    /**
     * The total size of every file.
     *
     * @return bytes
     */
    public long totalBytes() {
        long total = 0;
        for (byte[] bytes : files.values()) {
            total += bytes.length;
        }
        return total;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof StorageImage image) || !image.directories.equals(directories)
                || !image.files.keySet().equals(files.keySet())) {
            return false;
        }
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            if (!Arrays.equals(file.getValue(), image.files.get(file.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int hash = directories.hashCode();
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            hash = hash * 31 + file.getKey().hashCode();
            hash = hash * 31 + Arrays.hashCode(file.getValue());
        }
        return hash;
    }

    @Override
    public String toString() {
        return "StorageImage(" + directories.size() + " directories, " + files.size() + " files, " + totalBytes()
                + " bytes)";
    }
}
