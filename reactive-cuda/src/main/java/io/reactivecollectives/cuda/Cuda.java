package io.reactivecollectives.cuda;

import jcuda.runtime.JCuda;
import jcuda.runtime.cudaDeviceProp;
import jcuda.runtime.cudaError;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Whether CUDA can be used in this process, and which devices there are.
 *
 * <p>The first call probes once, and remembers the answer: JCuda's native library is loaded and
 * {@code cudaGetDeviceCount} is asked. On a machine without an NVIDIA driver the runtime answers
 * {@code cudaErrorInsufficientDriver}; on a platform without JCuda natives, loading throws
 * {@link UnsatisfiedLinkError}; a driver without a visible device answers
 * {@code cudaErrorNoDevice} or a count of 0. {@link #isAvailable()} never throws: it catches all of
 * these, and {@link #unavailableReason()} says which it was. Every other entry point of this module
 * fails with {@code IllegalStateException("CUDA unavailable: <reason> (<entry point>)")} instead of
 * a linkage error or a crash.
 *
 * <p>Setting the system property {@code rc.cuda.disabled=true} makes CUDA unavailable on purpose
 * (the reason says so).
 *
 * <p>The probe loads a native library (file I/O): call {@link #isAvailable()} once from an ordinary
 * thread (not a Netty event loop) before using the module from reactive code; the module's
 * factories do so.
 */
public final class Cuda {

    private Cuda() {
    }

    private static final class Probe {
        static final String REASON;
        static final int COUNT;

        static {
            Answer a = probe();
            REASON = a.reason();
            COUNT = a.count();
        }
    }

    /** What the probe found: why CUDA is unavailable (null when it is available) and the devices seen. */
    record Answer(String reason, int count) {
    }

    /**
     * Probes now (the class remembers the first answer). A value of {@code rc.cuda.disabled} that
     * does not parse is the reason, in the setting's own words (before, it read as "the JCuda native
     * library could not be used").
     */
    static Answer probe() {
        boolean disabled;
        try {
            disabled = CudaSettings.DISABLED.get();
        } catch (IllegalArgumentException e) {
            return new Answer(e.getMessage(), 0);
        }
        if (disabled) {
            return new Answer("disabled by the system property rc.cuda.disabled=true", 0);
        }
        try {
            JCuda.setExceptionsEnabled(false);
            int[] n = new int[1];
            int rc = JCuda.cudaGetDeviceCount(n);
            if (rc != cudaError.cudaSuccess) {
                return new Answer("cudaGetDeviceCount failed: " + errorName(rc) + " (" + errorText(rc) + ")" + hint(rc), 0);
            }
            return n[0] <= 0 ? new Answer("no CUDA device is visible (CUDA_VISIBLE_DEVICES="
                    + System.getenv("CUDA_VISIBLE_DEVICES") + ")", 0) : new Answer(null, n[0]);
        } catch (Throwable t) { // UnsatisfiedLinkError, NoClassDefFoundError, jcuda.CudaException, ...
            return new Answer("the JCuda native library could not be used: " + t.getClass().getName() + ": "
                    + firstLine(t.getMessage()), 0);
        }
    }

    /**
     * True when the JCuda runtime is loaded and at least one device is visible. Never throws.
     *
     * @return whether CUDA can be used in this process
     */
    public static boolean isAvailable() {
        return Probe.REASON == null;
    }

    /**
     * Why CUDA is unavailable, or an empty string when it is available. Never throws.
     *
     * @return the reason, or {@code ""} when CUDA is available
     */
    public static String unavailableReason() {
        return Probe.REASON == null ? "" : Probe.REASON;
    }

    /**
     * Checks that CUDA is available.
     *
     * @param entryPoint the method that needs it, named in the message
     * @throws IllegalStateException {@code CUDA unavailable: <reason> (<entryPoint>)}
     */
    public static void requireAvailable(String entryPoint) {
        if (Probe.REASON != null) {
            throw unavailable(entryPoint);
        }
    }

    /** The error {@link #requireAvailable} throws, for entry points that return it as a signal. */
    static IllegalStateException unavailable(String entryPoint) {
        return new IllegalStateException("CUDA unavailable: " + Probe.REASON + " (" + entryPoint + ")");
    }

    /**
     * Number of visible devices.
     *
     * @return the number of visible devices
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static int deviceCount() {
        requireAvailable("Cuda.deviceCount");
        return Probe.COUNT;
    }

    /**
     * Properties of device {@code index}.
     *
     * @param index the device ordinal, in {@code [0, deviceCount())}
     * @return the device's name, memory, compute capability, copy engines and PCI bus id
     * @throws IllegalStateException when CUDA is unavailable
     * @throws IllegalArgumentException when there is no device {@code index}
     */
    public static CudaDeviceInfo device(int index) {
        requireAvailable("Cuda.device");
        checkIndex(index);
        cudaDeviceProp p = new cudaDeviceProp();
        check(JCuda.cudaGetDeviceProperties(p, index), "cudaGetDeviceProperties(" + index + ")");
        String[] bus = new String[1];
        String pci = JCuda.cudaDeviceGetPCIBusId(bus, 32, index) == cudaError.cudaSuccess ? bus[0] : "?";
        return new CudaDeviceInfo(index, p.getName(), p.totalGlobalMem, p.major, p.minor, p.multiProcessorCount,
                p.asyncEngineCount, pci);
    }

    /**
     * Properties of every visible device.
     *
     * @return one entry per visible device, in ordinal order (unmodifiable)
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static List<CudaDeviceInfo> devices() {
        requireAvailable("Cuda.devices");
        List<CudaDeviceInfo> out = new ArrayList<>();
        for (int i = 0; i < Probe.COUNT; i++) {
            out.add(device(i));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Free and total memory of device {@code index} in bytes ({@code cudaMemGetInfo}), as
     * {@code {free, total}}.
     *
     * @param index the device ordinal
     * @return {@code {free, total}} in bytes
     * @throws IllegalStateException when CUDA is unavailable
     * @throws IllegalArgumentException when there is no device {@code index}
     */
    public static long[] memoryInfo(int index) {
        requireAvailable("Cuda.memoryInfo");
        checkIndex(index);
        setDevice(index);
        long[] free = new long[1];
        long[] total = new long[1];
        check(JCuda.cudaMemGetInfo(free, total), "cudaMemGetInfo(" + index + ")");
        return new long[] {free[0], total[0]};
    }

    /** Makes device {@code index} current on the calling thread. */
    static void setDevice(int index) {
        check(JCuda.cudaSetDevice(index), "cudaSetDevice(" + index + ")");
    }

    static void checkIndex(int index) {
        if (index < 0 || index >= Probe.COUNT) {
            throw new IllegalArgumentException("CUDA device " + index + " does not exist; " + Probe.COUNT + " visible");
        }
    }

    /** Throws {@link CudaException} for a CUDA error code. */
    static void check(int rc, String call) {
        if (rc != cudaError.cudaSuccess) {
            throw new CudaException(call, rc, errorName(rc), errorText(rc));
        }
    }

    static String errorName(int rc) {
        String s = cudaError.stringFor(rc);
        return s == null ? "cudaError " + rc : s;
    }

    static String errorText(int rc) {
        try {
            return JCuda.cudaGetErrorString(rc);
        } catch (Throwable t) {
            return "no description";
        }
    }

    private static String hint(int rc) {
        if (rc == cudaError.cudaErrorInsufficientDriver) {
            return ": no NVIDIA driver (libcuda.so.1) is installed, or it is older than the CUDA 12.6 runtime";
        }
        if (rc == cudaError.cudaErrorNoDevice) {
            return ": the driver sees no device";
        }
        return "";
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
