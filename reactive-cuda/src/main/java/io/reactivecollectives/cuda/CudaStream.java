package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Device;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaStream_t;

/**
 * A CUDA stream of one device: a dedicated non-blocking stream ({@link CudaStreams}) or the legacy
 * default stream ({@link #legacyDefault(Device)}), which is what code that names no stream uses.
 */
public final class CudaStream {

    private final Device device;
    private final cudaStream_t handle;
    private final String name;

    CudaStream(Device device, cudaStream_t handle, String name) {
        this.device = device;
        this.handle = handle;
        this.name = name;
    }

    /**
     * The legacy default stream (stream 0) of {@code device}.
     *
     * @param device the CUDA device
     * @return the device's stream 0
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static CudaStream legacyDefault(Device device) {
        Cuda.requireAvailable("CudaStream.legacyDefault");
        if (!device.isCuda()) {
            throw new IllegalArgumentException("CudaStream.legacyDefault: " + device + " is not a CUDA device");
        }
        return new CudaStream(device, JCuda.cudaStreamLegacy, "legacy-default");
    }

    /**
     * The device the stream belongs to.
     *
     * @return the stream's device
     */
    public Device device() {
        return device;
    }

    /**
     * JCuda's handle, for code that launches its own work on this stream.
     *
     * @return the JCuda stream handle
     */
    public cudaStream_t handle() {
        return handle;
    }

    @Override
    public String toString() {
        return "CudaStream[" + device + " " + name + "]";
    }
}
