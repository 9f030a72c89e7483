package io.reactivecollectives.transport.wire;

/**
 * {@code host:port} as the store and the mesh write and read it: an IPv6 address goes in brackets
 * ({@code [fd00::2]:29500}), and reading accepts both forms.
 */
public final class HostPorts {

    private HostPorts() {
    }

    /** {@code host:port}, an IPv6 address in brackets; the host alone when {@code port} is negative. */
    public static String format(String host, int port) {
        String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return port < 0 ? h : h + ":" + port;
    }

    /** The host of {@code host:port} or {@code [v6]:port}, without brackets. */
    public static String hostOf(String hostPort) {
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("not host:port: '" + hostPort + "'");
            }
            return hostPort.substring(1, close);
        }
        int colon = hostPort.lastIndexOf(':');
        return colon < 0 ? hostPort : hostPort.substring(0, colon);
    }

    /** The port of {@code host:port} or {@code [v6]:port}. */
    public static int portOf(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0 || colon < hostPort.lastIndexOf(']')) {
            throw new IllegalArgumentException("not host:port (no port): '" + hostPort + "'");
        }
        return Integer.parseInt(hostPort.substring(colon + 1));
    }
}
