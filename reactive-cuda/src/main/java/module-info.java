/**
 * CUDA tensors through host staging, on JCuda. JCuda's jar carries no module name; its file name
 * gives it the automatic name {@code jcuda}. Its native library is in {@code jcuda-natives}, which
 * JCuda finds on the class path (or, on the module path, with {@code --add-modules jcuda.natives}).
 */
module io.reactivecollectives.cuda {
    requires transitive io.reactivecollectives.core;
    requires jcuda;

    exports io.reactivecollectives.cuda;

    provides io.reactivecollectives.core.settings.SettingsProvider with io.reactivecollectives.cuda.CudaSettings;
}
