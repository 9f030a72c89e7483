/**
 * Internal: the wire pieces that the TCP store ({@code io.reactivecollectives.transport.rendezvous})
 * and the transport's rank mesh share: the length-prefixed frame splitter
 * ({@link io.reactivecollectives.store.wire.LengthPrefixedDecoder}) and its memory budget
 * ({@link io.reactivecollectives.store.wire.FrameMemoryBudget}), the HMAC-SHA256 of their handshakes
 * ({@link io.reactivecollectives.store.wire.HandshakeMac}), the log of rejected connections
 * ({@link io.reactivecollectives.store.wire.RejectionLog}) and the files of their Unix domain sockets
 * ({@link io.reactivecollectives.store.wire.UnixSocketFiles},
 * {@link io.reactivecollectives.store.wire.OwnedSocketFile}). Each protocol keeps its own frame
 * layout and error messages; this package knows neither.
 *
 * <p>Depends only on core, Netty and Reactor, and on nothing of the store or the transport (an
 * ArchUnit rule checks it). Exported to {@code io.reactivecollectives.transport} only; not a public API.
 */
package io.reactivecollectives.store.wire;
