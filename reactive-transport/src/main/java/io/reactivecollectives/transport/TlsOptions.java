package io.reactivecollectives.transport;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.SSLException;
import java.io.File;
import java.util.Objects;

/**
 * TLS on the connections between ranks ({@link GroupOptions#withTls}; mutual: each side proves
 * itself with a certificate the other trusts). With TLS on, every connection goes over TCP through
 * TLS, including those between ranks of one host (no Unix domain socket is published), heartbeats
 * included.
 *
 * <p>A rank that dials checks that the peer's certificate names the address it dials (endpoint
 * identification, Netty's default for clients): the address the peer published, an IP address
 * unless {@code RC_HOST} gives a name. Certificates for ranks on several hosts therefore carry
 * those names or addresses as subject alternative names ({@code perf/scripts/multihost_compare.sh}
 * makes one naming every host of its test bed).
 *
 * @param server the context a rank's server uses (it must require client certificates for mutual TLS)
 * @param client the context a rank dials with (its certificate and the trusted authorities)
 */
public record TlsOptions(SslContext server, SslContext client) {

    /**
     * Checks the contexts.
     *
     * @param server a server context that requires client certificates
     * @param client a client context with this rank's certificate and the trusted authorities
     * @throws IllegalArgumentException when {@code server} is not a server context or {@code client} not a client one
     */
    public TlsOptions {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(client, "client");
        if (!server.isServer() || !client.isClient()) {
            throw new IllegalArgumentException("TlsOptions needs a server context and a client context");
        }
    }

    /**
     * Mutual TLS from PEM files: this rank's certificate chain and PKCS#8 private key, and the
     * certificates (or authority) it trusts for its peers. Reads the files (blocking).
     *
     * @param certificate this rank's certificate chain (PEM)
     * @param privateKey  its private key (PEM, PKCS#8)
     * @param trusted     the certificates or authority trusted for the peers (PEM)
     * @return the TLS settings, for {@link GroupOptions#withTls}
     * @throws SSLException when a file cannot be read or parsed
     */
    public static TlsOptions fromPem(File certificate, File privateKey, File trusted) throws SSLException {
        SslContext server = SslContextBuilder.forServer(certificate, privateKey).trustManager(trusted)
                .clientAuth(ClientAuth.REQUIRE).build();
        SslContext client = SslContextBuilder.forClient().keyManager(certificate, privateKey).trustManager(trusted).build();
        return new TlsOptions(server, client);
    }

    @Override
    public String toString() {
        return "TlsOptions[mutual]";
    }
}
