package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.settings.CoreSettings;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Finds the native kernels' library and {@code System.load}s it: from
 * {@code -Drc.kernels.native.library}, from the class path's folder, or out of the jar through a
 * temporary file. Blocking (it reads and writes files): {@link NativeReduceKernels#load()} calls it
 * once, on a thread that may block.
 */
final class NativeLibraryFile {

    private NativeLibraryFile() {
    }

    /** Loads the library; returns null when it is loaded, else why not. */
    static String load() {
        try {
            // a setting that does not parse is a reason like the others (the Java kernels then do the work)
            if (!CoreSettings.KERNELS_NATIVE.get()) {
                return "turned off with -Drc.kernels.native=false";
            }
            Path explicit = CoreSettings.KERNELS_NATIVE_LIBRARY.get();
            if (explicit != null) {
                System.load(explicit.toAbsolutePath().toString());
                return null;
            }
            Optional<String> platform = NativeReduceKernels.platform(System.getProperty("os.name", ""),
                    System.getProperty("os.arch", ""));
            if (platform.isEmpty()) {
                return "no native kernels are built for " + System.getProperty("os.name") + " on "
                        + System.getProperty("os.arch");
            }
            String resource = "native/" + platform.get() + "/" + NativeReduceKernels.LIBRARY_FILE;
            URL url = NativeReduceKernels.class.getResource(resource);
            if (url == null) {
                return "this build has no " + platform.get() + " library (it was built without a C compiler, "
                        + "or with -Drc.native.skip=true)";
            }
            if ("file".equals(url.getProtocol())) {
                System.load(Paths.get(url.toURI()).toString());
                return null;
            }
            Path tmp = Files.createTempFile("rc_reduce_kernels", ".so");
            try (InputStream in = url.openStream()) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                System.load(tmp.toString());
            } finally {
                Files.deleteIfExists(tmp);  // the loaded library stays mapped
            }
            return null;
        } catch (IOException | URISyntaxException | RuntimeException | UnsatisfiedLinkError e) {
            return "the library could not be loaded: " + e;
        }
    }
}
