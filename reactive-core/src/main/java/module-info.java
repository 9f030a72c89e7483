/**
 * Tensors, dtypes, reduce ops, the {@code ProcessGroup} and {@code Store} contracts
 * ({@code core.rendezvous}), the flight recorder, metrics and tracing ({@code core.observe}) and DDP
 * gradient buckets ({@code core.ddp}). The reduction kernels ({@code core.kernels}) are internal: only
 * the transport, which reduces and copies received pieces with them (and loads its own JNI library,
 * {@code librc_shm.so}, with their {@code NativeLibraryFile}), may read them.
 *
 * <p>Its API names Reactor's {@code Mono}/{@code Flux}, Netty's {@code ByteBuf}, Micrometer's
 * registries and Jackson's {@code ObjectMapper} (JSON codecs), so a module that reads this one reads
 * those too.
 */
module io.reactivecollectives.core {
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires transitive micrometer.core;
    requires transitive micrometer.observation;
    requires transitive micrometer.commons;
    requires transitive com.fasterxml.jackson.databind;
    requires org.slf4j;
    // sun.misc.Unsafe: raw copies where java.lang.foreign is not there (JDK 17 to 21)
    requires jdk.unsupported;

    exports io.reactivecollectives.core;
    exports io.reactivecollectives.core.ddp;
    exports io.reactivecollectives.core.observe;
    exports io.reactivecollectives.core.rendezvous;
    // the settings registry: every rc.* setting of every module, typed (docs/settings.md is generated from it)
    exports io.reactivecollectives.core.settings;
    exports io.reactivecollectives.core.kernels to io.reactivecollectives.transport;

    // Jackson reads and writes the flight-recorder dump's records
    opens io.reactivecollectives.core.observe to com.fasterxml.jackson.databind;

    uses io.reactivecollectives.core.settings.SettingsProvider;
    provides io.reactivecollectives.core.settings.SettingsProvider with io.reactivecollectives.core.settings.CoreSettings;
}
