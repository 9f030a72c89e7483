package io.reactivecollectives.core;

import io.netty.util.ReferenceCounted;

/**
 * Reference-counted memory on an accelerator, the storage of a non-CPU {@link Tensor}. Implemented
 * by {@code reactive-cuda}; the core only needs to address, slice and release it. Views made by
 * {@link #slice(long, long)} share the reference count of the memory they view, as Netty's derived
 * buffers do.
 */
public interface DeviceMemory extends ReferenceCounted {

    /** The device that holds this memory. */
    Device device();

    /** Device address of the first byte. */
    long address();

    /** Length in bytes. */
    long byteSize();

    /** A view of {@code length} bytes from {@code offset}, sharing this memory's reference count. */
    DeviceMemory slice(long offset, long length);
}
