package io.reactivecollectives.core;

/**
 * Element types a {@link Tensor} can hold, with their size in bytes. Names and semantics follow
 * PyTorch's {@code torch.dtype}: {@link #FLOAT16} is IEEE 754 binary16 and {@link #BFLOAT16} is the
 * upper half of a binary32; both are stored as 16-bit patterns and computed in float32.
 */
public enum DType {
    BOOL(1, Kind.BOOL, "bool"),
    UINT8(1, Kind.UNSIGNED, "uint8"),
    INT8(1, Kind.SIGNED, "int8"),
    INT32(4, Kind.SIGNED, "int32"),
    INT64(8, Kind.SIGNED, "int64"),
    FLOAT16(2, Kind.FLOATING, "float16"),
    BFLOAT16(2, Kind.FLOATING, "bfloat16"),
    FLOAT32(4, Kind.FLOATING, "float32"),
    FLOAT64(8, Kind.FLOATING, "float64");

    private enum Kind { BOOL, UNSIGNED, SIGNED, FLOATING }

    private final int byteSize;
    private final Kind kind;
    private final String torchName;

    DType(int byteSize, Kind kind, String torchName) {
        this.byteSize = byteSize;
        this.kind = kind;
        this.torchName = torchName;
    }

    /** Bytes per element. */
    public int byteSize() {
        return byteSize;
    }

    /** True for FLOAT16, BFLOAT16, FLOAT32 and FLOAT64. */
    public boolean isFloatingPoint() {
        return kind == Kind.FLOATING;
    }

    /** True for UINT8, INT8, INT32 and INT64 (not BOOL). */
    public boolean isInteger() {
        return kind == Kind.SIGNED || kind == Kind.UNSIGNED;
    }

    /** True for BOOL. */
    public boolean isBool() {
        return kind == Kind.BOOL;
    }

    /** The name PyTorch uses ({@code float32}, {@code bfloat16}, ...). */
    public String torchName() {
        return torchName;
    }

    /** Parses a PyTorch or enum name, case-insensitively ({@code float32}, {@code FLOAT32}, {@code float}). */
    public static DType parse(String name) {
        String n = name.trim().toLowerCase(java.util.Locale.ROOT);
        switch (n) {
            case "float": return FLOAT32;
            case "double": return FLOAT64;
            case "half": return FLOAT16;
            case "int": return INT32;
            case "long": return INT64;
            default: break;
        }
        for (DType d : values()) {
            if (d.torchName.equals(n) || d.name().equalsIgnoreCase(n)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + name + "'; expected one of "
                + java.util.Arrays.toString(values()));
    }

    @Override
    public String toString() {
        return torchName;
    }
}
