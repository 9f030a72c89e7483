/**
 * Internal: the wire pieces that the TCP store ({@code ..transport.rendezvous}) and the rank mesh
 * ({@code ..transport.mesh}, {@code ..transport.frame}) share: the length-prefixed frame splitter
 * ({@link io.reactivecollectives.transport.wire.LengthPrefixedDecoder}), the HMAC-SHA256 of their
 * handshakes ({@link io.reactivecollectives.transport.wire.HandshakeMac}) and the files of their
 * Unix domain sockets ({@link io.reactivecollectives.transport.wire.UnixSocketFiles}); and the
 * marker of a frame lent where the transport received it
 * ({@link io.reactivecollectives.transport.wire.LentBuffer}), which the shared-memory rings make and
 * the mailboxes copy when they keep one. Each
 * protocol keeps its own frame layout and error messages; this package knows neither.
 *
 * <p>Depends only on core, Netty and Reactor, and on no other transport package (an ArchUnit rule
 * checks it). Not a public API.
 */
package io.reactivecollectives.transport.wire;
