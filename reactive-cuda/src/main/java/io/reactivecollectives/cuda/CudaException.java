package io.reactivecollectives.cuda;

/**
 * A CUDA runtime call returned an error. The message names the call and the error
 * ({@code cudaMalloc(1073741824 bytes) on cuda:0 failed: cudaErrorMemoryAllocation (out of memory)}).
 */
public final class CudaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int errorCode;

    public CudaException(String call, int errorCode, String errorName, String errorText) {
        super(call + " failed: " + errorName + " (" + errorText + ")");
        this.errorCode = errorCode;
    }

    /** The {@code cudaError_t} value. */
    public int errorCode() {
        return errorCode;
    }
}
