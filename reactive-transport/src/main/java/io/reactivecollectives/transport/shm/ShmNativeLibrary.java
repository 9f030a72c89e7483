package io.reactivecollectives.transport.shm;

import io.reactivecollectives.core.kernels.NativeLibraryFile;

import java.util.function.IntSupplier;

/**
 * The shared memory's JNI library, {@code librc_shm.so}: the futex waits of {@link NativeWaits} and
 * the thread placement of {@link NativeAffinity}. The build compiles
 * {@code reactive-transport/src/main/c} (rc_waits.c, rc_affinity.c) with the machine's C compiler
 * into this module's classes, under {@code io/reactivecollectives/transport/shm/native/<os>-<arch>/}
 * (core's {@code build-native.sh}, phase {@code process-classes}); core's {@link NativeLibraryFile}
 * loads it from there, once, on first use. Where it cannot (no C compiler at build time,
 * {@code -Drc.native.skip=true}, another OS, a load error) each user says why: shared memory falls
 * back to Unix sockets and the pollers are left where the scheduler puts them.
 */
final class ShmNativeLibrary {

    /** File name of the library. */
    static final String LIBRARY_FILE = "librc_shm.so";

    /** The library the build made; {@link NativeWaits} and {@link NativeAffinity} use it. */
    static final ShmNativeLibrary SHARED = new ShmNativeLibrary(LIBRARY_FILE);

    private final String fileName;

    /** Null until a load was tried; then "" when the library is loaded, else why not. */
    private volatile String outcome;

    /**
     * The library {@code fileName} beside this class, not loaded yet.
     *
     * @param fileName its file name (another than {@link #LIBRARY_FILE} in tests only)
     */
    ShmNativeLibrary(String fileName) {
        this.fileName = fileName;
    }

    /**
     * Loads the library unless a load was tried already; blocking (it may copy the library out of
     * the jar), thread-safe, and never throws for a library that cannot be loaded.
     *
     * @return null when the library is loaded, else why not
     */
    String load() {
        String o = outcome;
        if (o == null) {
            synchronized (this) {
                o = outcome;
                if (o == null) {
                    String why = NativeLibraryFile.load(ShmNativeLibrary.class, fileName, System::load);
                    outcome = o = why == null ? "" : why;
                }
            }
        }
        return o.isEmpty() ? null : o;
    }

    /**
     * Loads the library (blocking, as {@link #load()}) and asks a group of its entry points for its
     * ABI version.
     *
     * @param abi the group's probe, a native method returning its ABI version
     * @return whether the library is loaded and the probe answered 1
     */
    boolean has(IntSupplier abi) {
        if (load() != null) {
            return false;
        }
        try {
            return abi.getAsInt() == 1;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /**
     * Why a group of entry points is not in use: the load's reason, or that the loaded library
     * lacks the group.
     *
     * @param group the entry points in words ("the futex entry points")
     * @return the reason
     */
    String reasonWithout(String group) {
        String why = load();
        return why != null ? why : fileName + " lacks " + group;
    }
}
