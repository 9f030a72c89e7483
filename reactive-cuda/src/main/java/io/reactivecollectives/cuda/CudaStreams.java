package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Device;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaStream_t;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The dedicated copy streams of each device: one for host-to-device and one for device-to-host
 * copies, both created with {@code cudaStreamNonBlocking} (they do not wait for the legacy default
 * stream, and copies in the two directions run at the same time on the two copy engines). Created
 * once per device on first use and kept for the life of the process, as c10d keeps its side
 * streams.
 */
public final class CudaStreams {

    private static final ConcurrentMap<Integer, CudaStream> H2D = new ConcurrentHashMap<>();
    private static final ConcurrentMap<Integer, CudaStream> D2H = new ConcurrentHashMap<>();

    private CudaStreams() {
    }

    /**
     * The host-to-device copy stream of {@code device}.
     *
     * @param device the CUDA device
     * @return the stream host-to-device copies of {@code device} are enqueued on
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static CudaStream hostToDevice(Device device) {
        Cuda.requireAvailable("CudaStreams.hostToDevice");
        return H2D.computeIfAbsent(checked(device), i -> create(device, "h2d"));
    }

    /**
     * The device-to-host copy stream of {@code device}.
     *
     * @param device the CUDA device
     * @return the stream device-to-host copies of {@code device} are enqueued on
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static CudaStream deviceToHost(Device device) {
        Cuda.requireAvailable("CudaStreams.deviceToHost");
        return D2H.computeIfAbsent(checked(device), i -> create(device, "d2h"));
    }

    /**
     * A new non-blocking stream on {@code device}, owned by the caller (for example as the stream
     * a producer of tensors works on); it lives as long as the process.
     *
     * @param device the CUDA device
     * @return a new non-blocking stream
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static CudaStream newStream(Device device) {
        Cuda.requireAvailable("CudaStreams.newStream");
        checked(device);
        return create(device, "user");
    }

    private static int checked(Device device) {
        if (!device.isCuda()) {
            throw new IllegalArgumentException(device + " is not a CUDA device");
        }
        Cuda.checkIndex(device.index());
        return device.index();
    }

    private static CudaStream create(Device device, String name) {
        Cuda.setDevice(device.index());
        cudaStream_t s = new cudaStream_t();
        Cuda.check(JCuda.cudaStreamCreateWithFlags(s, JCuda.cudaStreamNonBlocking),
                "cudaStreamCreateWithFlags(" + device + ", " + name + ")");
        return new CudaStream(device, s, name);
    }
}
