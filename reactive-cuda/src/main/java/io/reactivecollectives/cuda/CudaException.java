package io.reactivecollectives.cuda;

/**
 * A CUDA runtime call returned an error. The message names the call and the error
 * ({@code cudaMalloc(1073741824 bytes) on cuda:0 failed: cudaErrorMemoryAllocation (out of memory)}).
 */
public final class CudaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The {@code cudaError_t} value the call returned. */
    private final int errorCode;

    /**
     * An error of a CUDA runtime call.
     *
     * @param call      the call and its arguments, as the message names it ({@code cudaMalloc(1024 bytes) on cuda:0})
     * @param errorCode the {@code cudaError_t} value returned
     * @param errorName the error's name ({@code cudaErrorMemoryAllocation})
     * @param errorText the runtime's description of the error ({@code out of memory})
     */
    public CudaException(String call, int errorCode, String errorName, String errorText) {
        super(call + " failed: " + errorName + " (" + errorText + ")");
        this.errorCode = errorCode;
    }

    /**
     * The {@code cudaError_t} value.
     *
     * @return the error code
     */
    public int errorCode() {
        return errorCode;
    }
}
