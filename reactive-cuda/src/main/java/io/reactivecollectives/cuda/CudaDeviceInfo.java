package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Device;

/**
 * What {@code cudaGetDeviceProperties} says about one device.
 *
 * @param index               device ordinal
 * @param name                product name ({@code NVIDIA H100 80GB HBM3})
 * @param totalMemory         global memory in bytes
 * @param major               compute capability, major
 * @param minor               compute capability, minor
 * @param multiProcessorCount streaming multiprocessors
 * @param asyncEngineCount    copy engines that can run concurrently with kernels (2: H2D and D2H overlap)
 * @param pciBusId            PCI bus id ({@code 0000:1b:00.0})
 */
public record CudaDeviceInfo(int index, String name, long totalMemory, int major, int minor,
                             int multiProcessorCount, int asyncEngineCount, String pciBusId) {

    /**
     * The {@link Device} of this ordinal.
     *
     * @return {@code Device.cuda(index)}
     */
    public Device device() {
        return Device.cuda(index);
    }

    @Override
    public String toString() {
        return "cuda:" + index + " " + name + " (sm_" + major + minor + ", " + (totalMemory >> 20) + " MiB, "
                + multiProcessorCount + " SMs, " + asyncEngineCount + " copy engines, " + pciBusId + ")";
    }
}
