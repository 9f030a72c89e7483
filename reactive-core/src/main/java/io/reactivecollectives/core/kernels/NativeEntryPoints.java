package io.reactivecollectives.core.kernels;

import java.util.function.IntSupplier;

/** Whether the native library, once loaded, has a group of entry points (its ABI probe answers 1). */
final class NativeEntryPoints {

    private NativeEntryPoints() {
    }

    /**
     * Loads the native library (blocking, as {@link ReduceKernels#load()}) and asks {@code abi}.
     *
     * @param abi the group's probe, a native method returning its ABI version
     * @return whether the library is in use and the probe answered 1
     */
    static boolean present(IntSupplier abi) {
        ReduceKernels.load();
        if (!NativeReduceKernels.isAvailable()) {
            return false;
        }
        try {
            return abi.getAsInt() == 1;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }
}
