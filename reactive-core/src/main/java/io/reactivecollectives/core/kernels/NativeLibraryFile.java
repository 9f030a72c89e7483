package io.reactivecollectives.core.kernels;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Finds a JNI library that the build put next to a module's classes and loads it: the native
 * reduction kernels of this module ({@code librc_reduce_kernels.so}, see {@link NativeReduceKernels})
 * and the transport's futex waits and thread placement ({@code librc_shm.so}). The library is the
 * resource {@code native/<os>-<arch>/<file>} beside its owner class (as {@code build-native.sh}
 * writes it); it is loaded from the class path's folder, or out of a jar through a temporary file
 * that is deleted once loaded. Blocking (it reads and writes files): call it once, on a thread that
 * may block.
 *
 * <p>Internal: this package is exported to the transport only.
 */
public final class NativeLibraryFile {

    private NativeLibraryFile() {
    }

    /**
     * Loads the library {@code fileName} that the build made for this platform beside {@code owner}.
     * Never throws for a library that cannot be loaded: the answer says why.
     *
     * <p>{@code systemLoad} is the caller's {@code System::load}: the JVM links a class's native
     * methods to the libraries registered with that class's loader, and {@code System.load}
     * registers a library with the loader of the class that calls it (and, from JDK 24, warns in the
     * name of that class's module unless native access is enabled for it), so the module that
     * declares the native methods makes the call.
     *
     * @param owner      a class of the library's module, in the package the library's folder is under
     * @param fileName   the library's file name ({@code librc_shm.so})
     * @param systemLoad {@code System::load}, written in the module that uses the library
     * @return null when the library is loaded, else why not
     */
    public static String load(Class<?> owner, String fileName, Consumer<String> systemLoad) {
        try {
            Optional<String> platform = NativeReduceKernels.platform(System.getProperty("os.name", ""),
                    System.getProperty("os.arch", ""));
            if (platform.isEmpty()) {
                return "no native library is built for " + System.getProperty("os.name") + " on "
                        + System.getProperty("os.arch");
            }
            // "native/<os>-<arch>" is no package name, so a named module's resource there is not encapsulated
            URL url = owner.getResource("native/" + platform.get() + "/" + fileName);
            if (url == null) {
                return "this build has no " + platform.get() + " " + fileName + " (it was built without a C"
                        + " compiler, or with -Drc.native.skip=true)";
            }
            if ("file".equals(url.getProtocol())) {
                systemLoad.accept(Paths.get(url.toURI()).toString());
                return null;
            }
            Path tmp = Files.createTempFile(fileName.replaceFirst("\\.so$", ""), ".so");
            try (InputStream in = url.openStream()) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                systemLoad.accept(tmp.toString());
            } finally {
                Files.deleteIfExists(tmp);  // the loaded library stays mapped
            }
            return null;
        } catch (IOException | URISyntaxException | RuntimeException | UnsatisfiedLinkError e) {
            return "the library could not be loaded: " + e;
        }
    }
}
