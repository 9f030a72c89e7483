package io.reactivecollectives.cuda;

import jcuda.Pointer;

/**
 * A JCuda {@link Pointer} made from, or read back as, a raw address: device addresses from
 * {@code cudaMalloc}, host addresses of direct buffers and pinned slabs. JCuda keeps these
 * accessors protected; this subclass is the one place that reaches them.
 */
final class AddressPointer extends Pointer {

    /** A null pointer, to be filled by an allocation call ({@code cudaMalloc(p, n)}). */
    AddressPointer() {
        super();
    }

    /** A pointer to {@code address}. */
    AddressPointer(long address) {
        super(address);
    }

    /** The address this pointer holds. */
    long address() {
        return getNativePointer() + getByteOffset();
    }
}
