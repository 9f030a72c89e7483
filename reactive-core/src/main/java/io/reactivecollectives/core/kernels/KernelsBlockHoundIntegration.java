package io.reactivecollectives.core.kernels;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound that loading the native reduction kernels may block: it happens once, on
 * whichever thread reduces first (an event loop among them), and reads the library out of the jar
 * into a temporary file. Found through {@link java.util.ServiceLoader} when BlockHound is installed;
 * BlockHound is an optional dependency, so this class is never loaded without it.
 */
public final class KernelsBlockHoundIntegration implements BlockHoundIntegration {

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside(NativeReduceKernels.class.getName(), "loadLibrary");
    }
}
