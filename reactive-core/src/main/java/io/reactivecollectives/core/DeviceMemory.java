package io.reactivecollectives.core;

import io.netty.util.ReferenceCounted;

/**
 * Reference-counted memory on an accelerator, the storage of a non-CPU {@link Tensor}. Implemented
 * by {@code reactive-cuda}; the core only needs to address, slice and release it. Views made by
 * {@link #slice(long, long)} share the reference count of the memory they view, as Netty's derived
 * buffers do.
 */
public interface DeviceMemory extends ReferenceCounted {

    /**
     * The device that holds this memory.
     *
     * @return the device
     */
    Device device();

    /**
     * Device address of the first byte.
     *
     * @return the address
     */
    long address();

    /**
     * Length in bytes.
     *
     * @return the length in bytes
     */
    long byteSize();

    /**
     * A view of {@code length} bytes from {@code offset}, sharing this memory's reference count.
     *
     * @param offset the first byte of the view
     * @param length its length in bytes
     * @return the view
     */
    DeviceMemory slice(long offset, long length);
}
