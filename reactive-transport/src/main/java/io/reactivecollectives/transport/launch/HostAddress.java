package io.reactivecollectives.transport.launch;

import io.reactivecollectives.transport.settings.TransportSettings;
import io.reactivecollectives.transport.wire.HostPorts;

import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Which address a rank's group server binds and publishes to its peers, chosen as c10d and NCCL
 * do, so that a rank never hands a loopback address to a peer on another host. In order:
 * <ol>
 *   <li>{@code RC_HOST}: an explicit address or host name, used as it is;</li>
 *   <li>{@code RC_SOCKET_IFNAME}: interfaces by name, with NCCL's {@code NCCL_SOCKET_IFNAME}
 *       spelling: {@code eth0,ens} (names starting so), {@code =eth0} (exactly that name),
 *       {@code ^lo,docker} (any but those); the first address of the first matching interface that
 *       is up, of the store's address family where it has one;</li>
 *   <li>a store on a loopback address with every rank on this host ({@code LOCAL_WORLD_SIZE}
 *       equal to the world size, or no launcher saying otherwise): loopback;</li>
 *   <li>otherwise the local address of the route to the store (no packet is sent); when that is a
 *       loopback address (the store's host name maps to {@code 127.0.1.1}, Debian's default for the
 *       machine's own name) the first address of an interface that is up and neither loopback nor
 *       {@code docker}/{@code virbr}/{@code veth}-like.</li>
 * </ol>
 * IPv6 works throughout; {@link #format} writes such an address in brackets.
 */
public final class HostAddress {

    /** An explicit address or host name to publish. */
    public static final String HOST_ENV = "RC_HOST";
    /** Interfaces to take the address from (see the class comment for the spelling). */
    public static final String IFNAME_ENV = "RC_SOCKET_IFNAME";

    private static final List<String> VIRTUAL = List.of("docker", "virbr", "veth", "br-", "cni", "flannel");

    private HostAddress() {
    }

    /**
     * The address for this rank's group server, given the launcher's {@code env} and the store's
     * host and port. Fails with an {@link IllegalStateException} naming the variables to set when
     * no address qualifies.
     *
     * @param env       the launcher's environment ({@value #HOST_ENV} and {@value #IFNAME_ENV} are read)
     * @param storeHost the store's host, which the chosen address must reach
     * @param worldSize the world size (a world on one host may use loopback)
     * @return the address to bind and publish
     */
    public static String choose(Map<String, String> env, String storeHost, int worldSize) {
        return choose(env, storeHost, null, worldSize);
    }

    /**
     * {@link #choose(Map, String, int)}, naming where the store's host came from when it cannot be
     * resolved.
     *
     * @param env        the launcher's environment
     * @param storeHost  the store's host
     * @param hostOrigin the variable (and launcher option) {@code storeHost} came from, null when unknown
     * @param worldSize  the world size
     * @return the address to bind and publish
     */
    static String choose(Map<String, String> env, String storeHost, String hostOrigin, int worldSize) {
        String explicit = TransportSettings.HOST.get(env);
        if (explicit != null && !explicit.isBlank()) {
            try {
                lookUp(explicit.trim());
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("setting " + HOST_ENV + " (environment variable): cannot resolve '"
                        + explicit.trim() + "': " + e.getMessage() + "; set it to an address or name of this host that "
                        + "the other ranks reach, or unset it (the route to the store then picks one)", e);
            }
            return explicit.trim();
        }
        InetAddress store = resolve(storeHost, hostOrigin);
        String ifname = TransportSettings.SOCKET_IFNAME.get(env);
        if (ifname != null && !ifname.isBlank()) {
            return fromInterfaces(ifname.trim(), store).orElseThrow(() -> new IllegalStateException(IFNAME_ENV + "='"
                    + ifname + "' matches no interface that is up with an address; interfaces: " + describeInterfaces()));
        }
        boolean allLocal = worldSize <= 1 || String.valueOf(worldSize).equals(env.get("LOCAL_WORLD_SIZE"))
                || !env.containsKey("LOCAL_WORLD_SIZE");
        if (store.isLoopbackAddress() && allLocal) {
            return store instanceof Inet6Address ? "::1" : "127.0.0.1";
        }
        InetAddress route = routeTo(store);
        if (route != null && !route.isLoopbackAddress() && !route.isAnyLocalAddress()) {
            return route.getHostAddress();
        }
        return ownAddress(store).orElseThrow(() -> new IllegalStateException("no address of this host "
                + "reaches the store at " + format(storeHost, -1) + " but loopback, and the world spans hosts; set "
                + HOST_ENV + " or " + IFNAME_ENV + " (interfaces: " + describeInterfaces() + ")"));
    }

    /**
     * The first address of this host's first interface that is up and neither loopback nor virtual,
     * preferring {@code like}'s family (null: any), if any.
     */
    static java.util.Optional<String> ownAddress(InetAddress like) {
        return fromInterfaces("^lo," + String.join(",", VIRTUAL), like);
    }

    /**
     * {@code host:port}, with an IPv6 address in brackets ({@code [fd00::2]:29500}); no port when it is negative.
     *
     * @param host a host name or address
     * @param port the port, or a negative number for none
     * @return the formatted address
     */
    public static String format(String host, int port) {
        return HostPorts.format(host, port);
    }

    /** The local address of the route to {@code target} (a connected UDP socket: nothing is sent), or null. */
    static InetAddress routeTo(InetAddress target) {
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(new InetSocketAddress(target, 9));
            InetAddress local = s.getLocalAddress();
            return local == null || local.isAnyLocalAddress() ? null : local;
        } catch (SocketException | UncheckedIOException e) {
            return null;
        }
    }

    /** The first address of the first interface (up) that {@code spec} selects, preferring {@code like}'s family. */
    static java.util.Optional<String> fromInterfaces(String spec, InetAddress like) {
        boolean exclude = spec.startsWith("^");
        boolean exact = spec.startsWith("=");
        List<String> names = new ArrayList<>();
        for (String n : (exclude || exact ? spec.substring(1) : spec).split(",")) {
            if (!n.isBlank()) {
                names.add(n.trim());
            }
        }
        List<InetAddress> preferred = new ArrayList<>();
        List<InetAddress> other = new ArrayList<>();
        for (NetworkInterface nif : interfaces()) {
            String name = nif.getName();
            boolean named = names.stream().anyMatch(n -> exact ? name.equals(n) : name.startsWith(n));
            if (exclude == named) {
                continue;
            }
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (a.isLinkLocalAddress() || (exclude && a.isLoopbackAddress())) {
                    continue;
                }
                boolean sameFamily = like == null || (like instanceof Inet4Address) == (a instanceof Inet4Address);
                (sameFamily ? preferred : other).add(a);
            }
        }
        preferred.addAll(other);
        return preferred.stream().findFirst().map(a -> strip(a.getHostAddress()));
    }

    private static List<NetworkInterface> interfaces() {
        List<NetworkInterface> up = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nif.isUp()) {
                    up.add(nif);
                }
            }
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
        return up;
    }

    private static String describeInterfaces() {
        List<String> out = new ArrayList<>();
        for (NetworkInterface nif : interfaces()) {
            List<String> addrs = new ArrayList<>();
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                addrs.add(strip(a.getHostAddress()));
            }
            out.add(nif.getName() + " " + addrs);
        }
        return String.join(", ", out);
    }

    /** {@code fe80::1%eth0} without its scope (the address is published to other hosts). */
    private static String strip(String address) {
        int pct = address.indexOf('%');
        return pct < 0 ? address : address.substring(0, pct);
    }

    private static InetAddress resolve(String host, String origin) {
        try {
            return lookUp(host);
        } catch (UnknownHostException e) {
            String from = origin == null ? "the store's host" : origin;
            throw new IllegalStateException("cannot resolve the store's host '" + host + "'"
                    + (origin == null ? "" : " (from " + origin + ")") + ": " + e.getMessage() + "; check that " + from
                    + " names the host that serves the store and that this host resolves the name (DNS, /etc/hosts)", e);
        }
    }

    private static InetAddress lookUp(String host) throws UnknownHostException {
        return InetAddress.getByName(host.startsWith("[") ? HostPorts.hostOf(host + ":0") : host);
    }

    /**
     * Where a launch's store host came from, for messages: {@code MASTER_ADDR (collectives-run
     * --master-addr)}, {@code PET_MASTER_ADDR}, {@code SLURM_JOB_NODELIST (its first host)}.
     */
    static String origin(Map<String, String> env, String launcher) {
        switch (launcher) {
            case "collectives-run": return "MASTER_ADDR (collectives-run --master-addr or --store-peers)";
            case "torchrun": return "MASTER_ADDR (torchrun --master-addr)";
            case "TrainJob": return "PET_MASTER_ADDR";
            case "Slurm": return EnvRendezvous.present(env, "MASTER_ADDR") ? "MASTER_ADDR"
                    : EnvRendezvous.present(env, "SLURM_JOB_NODELIST") ? "SLURM_JOB_NODELIST (its first host)"
                    : "SLURM_NODELIST (its first host)";
            default: return "MASTER_ADDR";
        }
    }
}
