package io.reactivecollectives.core;

import java.util.Objects;

/**
 * Where a tensor's memory lives: host memory ({@link #CPU}) or the memory of one CUDA device
 * ({@link #cuda(int)}). Value object; compare with {@link #equals(Object)}.
 */
public final class Device {

    /** The kind of a device. */
    public enum Type {
        /** Host memory. */
        CPU,
        /** A CUDA device. */
        CUDA
    }

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
     * @param index the device ordinal, at least 0
     * @return the device
     * @throws IllegalArgumentException if {@code index} is negative
     */
    public static Device cuda(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("CUDA device index must be >= 0, got " + index);
        }
        return new Device(Type.CUDA, index);
    }

    /** {@return the kind of device} */
    public Type type() {
        return type;
    }

    /**
     * Device ordinal for CUDA; -1 for CPU.
     *
     * @return the ordinal, or -1
     */
    public int index() {
        return index;
    }

    /** {@return whether this is host memory} */
    public boolean isCpu() {
        return type == Type.CPU;
    }

    /** {@return whether this is a CUDA device} */
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
