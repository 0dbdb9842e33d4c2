package dev.lockstep;

/**
 * A blob just opened, with its length at the time of opening.
 *
 * @param blob the open blob; close it when done
 * @param length its length in bytes
 */
public record OpenedBlob(Blob blob, long length) {
}
