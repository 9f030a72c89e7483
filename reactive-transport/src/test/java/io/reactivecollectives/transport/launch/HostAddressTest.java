package io.reactivecollectives.transport.launch;

import io.reactivecollectives.transport.wire.HostPorts;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which address a rank publishes: never a loopback address to peers on other hosts. */
class HostAddressTest {

    /** A non-loopback, non-link-local address of an interface of this machine that is up, if any. */
    private static Optional<InetAddress> nonLoopback() throws Exception {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || nif.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (!a.isLinkLocalAddress() && !a.isLoopbackAddress() && a instanceof java.net.Inet4Address) {
                    return Optional.of(a);
                }
            }
        }
        return Optional.empty();
    }

    @Test
    void anExplicitAddressWins() {
        assertEquals("10.1.2.3", HostAddress.choose(Map.of("RC_HOST", "10.1.2.3"), "127.0.0.1", 4));
    }

    @Test
    void anUnresolvableExplicitAddressNamesTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostAddress.choose(Map.of("RC_HOST", "nohost.invalid"), "127.0.0.1", 4));
        assertTrue(e.getMessage().startsWith("setting RC_HOST (environment variable): cannot resolve 'nohost.invalid'"),
                e.getMessage());
        assertTrue(e.getMessage().contains("or unset it"), e.getMessage());
    }

    /** The store's host names the variable it came from, and the launcher and rank, not RC_HOST. */
    @Test
    void anUnresolvableStoreHostNamesTheVariableItCameFrom() {
        Map<String, String> torchrun = Map.of("MASTER_ADDR", "nohost.invalid", "MASTER_PORT", "29500", "RANK", "1",
                "WORLD_SIZE", "3", "LOCAL_RANK", "1", "LOCAL_WORLD_SIZE", "3");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> EnvRendezvous.groupHost(torchrun));
        assertTrue(e.getMessage().startsWith("torchrun launch, rank 1: cannot resolve the store's host 'nohost.invalid'"
                + " (from MASTER_ADDR (torchrun --master-addr)): "), e.getMessage());
        assertTrue(e.getMessage().endsWith("; check that MASTER_ADDR (torchrun --master-addr) names the host that serves"
                + " the store and that this host resolves the name (DNS, /etc/hosts)"), e.getMessage());
        assertFalse(e.getMessage().contains("RC_HOST"), e.getMessage());
        Map<String, String> slurm = Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "2", "SLURM_LOCALID", "0",
                "SLURM_JOB_NODELIST", "nohost.invalid");
        e = assertThrows(IllegalStateException.class, () -> EnvRendezvous.groupHost(slurm));
        assertTrue(e.getMessage().startsWith("Slurm launch, rank 0: cannot resolve the store's host 'nohost.invalid'"
                + " (from SLURM_JOB_NODELIST (its first host))"), e.getMessage());
    }

    @Test
    void aKubernetesPodWhoseStoreNameDoesNotResolveYetPublishesItsOwnAddressAndGoesOn() {
        // before: the pod failed at once (a headless service's name resolves only once its pod runs),
        // using up the Job's retries, though the docs say the store connection retries the name
        org.junit.jupiter.api.Assumptions.assumeTrue(HostAddress.ownAddress(null).isPresent(), "this host has an interface besides loopback");
        Map<String, String> indexed = Map.of("JOB_COMPLETION_INDEX", "1", "WORLD_SIZE", "2", "MASTER_ADDR", "myjob-0.myjob-svc.invalid");
        assertEquals(HostAddress.ownAddress(null).get(), EnvRendezvous.groupHost(indexed));
        Map<String, String> pytorchJob = Map.of("RANK", "1", "WORLD_SIZE", "2", "MASTER_ADDR", "pytorchjob-master-0.invalid",
                "MASTER_PORT", "23456");
        assertEquals(HostAddress.ownAddress(null).get(), EnvRendezvous.groupHost(pytorchJob));
    }

    @Test
    void aLocalRunStaysOnLoopback() {
        assertEquals("127.0.0.1", HostAddress.choose(Map.of(), "127.0.0.1", 4));
        assertEquals("127.0.0.1", HostAddress.choose(Map.of("LOCAL_WORLD_SIZE", "4"), "localhost", 4));
        assertEquals("::1", HostAddress.choose(Map.of(), "::1", 2));
    }

    @Test
    void aStoreOnLoopbackWithRanksOnOtherHostsPublishesARealAddress() throws Exception {
        // Debian maps the machine's own name to 127.0.1.1: the store's host is "loopback" on its own
        // host, while the ranks of the other hosts need an address that reaches this one
        Map<String, String> env = Map.of("LOCAL_WORLD_SIZE", "2");
        if (nonLoopback().isPresent()) {
            String chosen = HostAddress.choose(env, "127.0.1.1", 4);
            assertFalse(InetAddress.getByName(chosen).isLoopbackAddress(), chosen);
        } else {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> HostAddress.choose(env, "127.0.1.1", 4));
            assertTrue(e.getMessage().contains("RC_HOST"), e.getMessage());
        }
    }

    @Test
    void aRemoteStoreGetsTheAddressOfTheRouteToIt() throws Exception {
        Optional<InetAddress> mine = nonLoopback();
        if (mine.isEmpty()) {
            return;   // a machine with loopback only has no route to show
        }
        String host = mine.get().getHostAddress();
        assertEquals(host, HostAddress.choose(Map.of("LOCAL_WORLD_SIZE", "1"), host, 2));
    }

    @Test
    void interfacesByName() throws Exception {
        assertEquals("127.0.0.1", HostAddress.choose(Map.of("RC_SOCKET_IFNAME", "=lo"), "127.0.0.1", 2));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> HostAddress.choose(Map.of("RC_SOCKET_IFNAME", "=nosuchif0"), "127.0.0.1", 2));
        assertTrue(e.getMessage().contains("RC_SOCKET_IFNAME='=nosuchif0' matches no interface")
                && e.getMessage().contains("lo "), e.getMessage());
        if (nonLoopback().isPresent()) {
            String chosen = HostAddress.choose(Map.of("RC_SOCKET_IFNAME", "^lo"), "127.0.0.1", 2);
            assertFalse(InetAddress.getByName(chosen).isLoopbackAddress(), chosen);
        }
    }

    @Test
    void anUnknownStoreHostIsNamed() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> HostAddress.choose(Map.of("LOCAL_WORLD_SIZE", "1"), "no-such-host.invalid", 2));
        assertTrue(e.getMessage().contains("'no-such-host.invalid'"), e.getMessage());
    }

    @Test
    void ipv6AddressesAreWrittenInBrackets() {
        assertEquals("[fd00::2]:29500", HostAddress.format("fd00::2", 29500));
        assertEquals("10.0.0.1:29500", HostAddress.format("10.0.0.1", 29500));
        assertEquals("fd00::2", HostPorts.hostOf("[fd00::2]:29500"));
        assertEquals(29500, HostPorts.portOf("[fd00::2]:29500"));
        assertEquals("10.0.0.1", HostPorts.hostOf("10.0.0.1:1"));
        assertThrows(IllegalArgumentException.class, () -> HostPorts.portOf("[fd00::2]"));
    }

    @Test
    void theEnvironmentJoinUsesIt() {
        Map<String, String> env = Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500", "RANK", "1",
                "WORLD_SIZE", "2", "LOCAL_RANK", "1", "LOCAL_WORLD_SIZE", "2");
        assertEquals("127.0.0.1", EnvRendezvous.groupHost(env));
    }
}
