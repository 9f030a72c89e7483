package io.reactivecollectives.core;

import java.util.Objects;

/**
 * Where a tensor's memory lives: host memory ({@link #CPU}) or the memory of one CUDA device
 * ({@link #cuda(int)}). Value object; compare with {@link #equals(Object)}.
 */
public final class Device {

    /** The kind of a device. */
    public enum Type { CPU, CUDA }

    /** Host memory. */
    public static final Device CPU = new Device(Type.CPU, -1);

    private final Type type;
    private final int index;

    private Device(Type type, int index) {
        this.type = type;
        this.index = index;
    }

    /**
     * The CUDA device with the given ordinal.
     *
     * @throws IllegalArgumentException if {@code index} is negative
     */
    public static Device cuda(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("CUDA device index must be >= 0, got " + index);
        }
        return new Device(Type.CUDA, index);
    }

    public Type type() {
        return type;
    }

    /** Device ordinal for CUDA; -1 for CPU. */
    public int index() {
        return index;
    }

    public boolean isCpu() {
        return type == Type.CPU;
    }

    public boolean isCuda() {
        return type == Type.CUDA;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Device && ((Device) o).type == type && ((Device) o).index == index;
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, index);
    }

    /** {@code cpu} or {@code cuda:N}, as PyTorch prints devices. */
    @Override
    public String toString() {
        return type == Type.CPU ? "cpu" : "cuda:" + index;
    }
}
