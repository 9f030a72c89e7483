package io.reactivecollectives.core;

/**
 * Element types a {@link Tensor} can hold, with their size in bytes. Names and semantics follow
 * PyTorch's {@code torch.dtype}: {@link #FLOAT16} is IEEE 754 binary16 and {@link #BFLOAT16} is the
 * upper half of a binary32; both are stored as 16-bit patterns and computed in float32.
 */
public enum DType {
    /** Boolean, one byte (0 or 1). */
    BOOL(1, Kind.BOOL, "bool"),
    /** Unsigned 8-bit integer. */
    UINT8(1, Kind.UNSIGNED, "uint8"),
    /** Signed 8-bit integer. */
    INT8(1, Kind.SIGNED, "int8"),
    /** Signed 32-bit integer. */
    INT32(4, Kind.SIGNED, "int32"),
    /** Signed 64-bit integer. */
    INT64(8, Kind.SIGNED, "int64"),
    /** IEEE 754 binary16 (half precision). */
    FLOAT16(2, Kind.FLOATING, "float16"),
    /** bfloat16: the upper 16 bits of a binary32. */
    BFLOAT16(2, Kind.FLOATING, "bfloat16"),
    /** IEEE 754 binary32. */
    FLOAT32(4, Kind.FLOATING, "float32"),
    /** IEEE 754 binary64. */
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

    /**
     * Bytes per element.
     *
     * @return the element size in bytes
     */
    public int byteSize() {
        return byteSize;
    }

    /**
     * True for FLOAT16, BFLOAT16, FLOAT32 and FLOAT64.
     *
     * @return whether this is a floating-point type
     */
    public boolean isFloatingPoint() {
        return kind == Kind.FLOATING;
    }

    /**
     * True for UINT8, INT8, INT32 and INT64 (not BOOL).
     *
     * @return whether this is an integer type
     */
    public boolean isInteger() {
        return kind == Kind.SIGNED || kind == Kind.UNSIGNED;
    }

    /**
     * True for BOOL.
     *
     * @return whether this is BOOL
     */
    public boolean isBool() {
        return kind == Kind.BOOL;
    }

    /**
     * The name PyTorch uses ({@code float32}, {@code bfloat16}, ...).
     *
     * @return the PyTorch name
     */
    public String torchName() {
        return torchName;
    }

    /**
     * Parses a PyTorch or enum name, case-insensitively ({@code float32}, {@code FLOAT32}, {@code float}).
     *
     * @param name the name ({@code float32}, {@code FLOAT32}, or an alias: {@code float}, {@code double},
     *             {@code half}, {@code int}, {@code long})
     * @return the dtype
     */
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
