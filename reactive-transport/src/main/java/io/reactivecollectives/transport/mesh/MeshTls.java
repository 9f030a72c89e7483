package io.reactivecollectives.transport.mesh;

import io.netty.handler.ssl.SslContext;

import java.util.Objects;

/**
 * The mesh's TLS contexts (mutual TLS between ranks): what {@code GroupOptions.withTls}'s
 * {@code TlsOptions} hands the mesh, which may not depend on the facade's package. With TLS on,
 * every connection goes over TCP through TLS (no Unix domain socket), heartbeats included.
 *
 * @param server the context a rank's server uses (it requires client certificates)
 * @param client the context a rank dials with (its certificate and the trusted authorities)
 */
public record MeshTls(SslContext server, SslContext client) {

    /**
     * Checks the contexts.
     *
     * @param server a server context
     * @param client a client context
     * @throws IllegalArgumentException when {@code server} is not a server context or {@code client} not a client one
     */
    public MeshTls {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(client, "client");
        if (!server.isServer() || !client.isClient()) {
            throw new IllegalArgumentException("MeshTls needs a server context and a client context");
        }
    }

    @Override
    public String toString() {
        return "MeshTls[mutual]";
    }
}
