package io.reactivecollectives.tools.launch;

import io.reactivecollectives.transport.rendezvous.StoreAuth;
import io.reactivecollectives.transport.DashboardOptions;

import java.io.File;
import java.io.IOException;
import java.net.BindException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code collectives-run --dashboard[=[HOST:]PORT]}: every rank serves its live view, rank 0 the
 * whole job's page on {@code PORT} ({@value DashboardOptions#DEFAULT_PORT} without a value), on
 * loopback unless a host is given. The ranks learn it from {@value DashboardOptions#ENV}; a class
 * path of the user's own that lacks the dashboard gets the launcher's (the {@code reactive-dashboard}
 * jar and the HTTP parts of Reactor Netty and Netty), as it gets the library.
 *
 * @param options where rank 0 serves the page
 */
record DashboardFlag(DashboardOptions options) {

    /** Classes whose jars make the dashboard: the provider, Reactor Netty's HTTP server, Netty's HTTP/1 and 2 codecs. */
    static final List<String> PARTS = List.of("io.reactivecollectives.dashboard.DashboardServer",
            "reactor.netty.http.server.HttpServer", "io.netty.handler.codec.http.HttpServerCodec",
            "io.netty.handler.codec.http2.Http2CodecUtil");

    /**
     * Reads the flag's value and, on node rank 0, checks that rank 0 can listen there.
     *
     * @param value    the flag's value (null when the flag is absent)
     * @param nodeRank this node's rank
     * @param env      the launcher's environment (the ranks inherit it): a host other than loopback needs
     *                 {@code RC_STORE_SECRET} there
     * @return the flag, or null when absent
     * @throws IllegalArgumentException with a one-line message naming the flag
     */
    static DashboardFlag of(String value, int nodeRank, Map<String, String> env) {
        if (value == null) {
            return null;
        }
        DashboardOptions o;
        try {
            o = DashboardOptions.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--dashboard " + value + " is not PORT or HOST:PORT", e);
        }
        if (o == null) {
            return null;
        }
        if (!o.loopbackOnly() && StoreAuth.secretFrom(env) == null) {   // as the ranks will read it
            throw new IllegalArgumentException("--dashboard " + value + ": " + o.host() + " is not loopback, so the ranks"
                    + " need the group's secret to serve the page, and " + StoreAuth.SECRET_ENV
                    + " is not set; set it (the same value on every node) or serve on loopback");
        }
        if (nodeRank == 0 && o.port() != 0) {
            try {
                StorePort.probe(o.host(), o.port());
            } catch (BindException e) {
                throw new IllegalArgumentException("--dashboard " + value + ": " + o.spec() + " is in use or cannot be"
                        + " listened on (" + e.getMessage() + "); pick another port", e);
            } catch (IOException | SecurityException e) {
                throw new IllegalArgumentException("--dashboard " + value + ": cannot listen on " + o.spec() + " ("
                        + e.getMessage() + ")", e);
            }
        }
        return new DashboardFlag(o);
    }

    /** {@return the value of {@value DashboardOptions#ENV} for every rank} */
    String spec() {
        return options.spec();
    }

    /** {@return the page's address, as the launcher prints it} */
    String url() {
        String host = options.host().equals("0.0.0.0") || options.host().equals("::") ? "<this host>" : options.host();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + (options.port() == 0 ? "<any>" : options.port()) + "/";
    }

    /**
     * The ranks' class path: as it is when the launcher's own (which has the dashboard) or when it
     * brings the dashboard's provider, else with the launcher's dashboard jars after it.
     *
     * @param child the ranks' class path as resolved
     * @return the class path to run the ranks on
     */
    String classPath(ChildClassPath child) {
        if (!child.own() || ChildClassPath.holds(ChildClassPath.expand(child.classPath()), PARTS.get(0))) {
            return child.classPath();
        }
        Set<String> entries = new LinkedHashSet<>(ChildClassPath.expand(child.classPath()));
        for (String part : PARTS) {
            entries.add(jarOf(part));
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String jarOf(String className) {
        try {
            Class<?> c = Class.forName(className, false, DashboardFlag.class.getClassLoader());
            return new File(c.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (ReflectiveOperationException | java.net.URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("--dashboard: the launcher's class path lacks " + className
                    + " (io.reactivecollectives:reactive-dashboard)", e);
        }
    }

    /**
     * Takes the word after a bare {@code --dashboard} as its value only when it looks like one (a
     * port, or host and port): {@code --dashboard my.Main} is the flag without a value, then the
     * main class, not a dashboard at {@code my.Main}.
     */
    static final class Value implements picocli.CommandLine.IParameterPreprocessor {
        /** A port, or HOST:PORT with the host as a name, an IPv4 address or a bracketed IPv6 one. */
        private static final java.util.regex.Pattern LOOKS_LIKE = java.util.regex.Pattern.compile("(\\[[^]]*]:|[^:/\\s]+:)?[0-9]+");

        @Override
        public boolean preprocess(java.util.Stack<String> args, picocli.CommandLine.Model.CommandSpec spec,
                                  picocli.CommandLine.Model.ArgSpec argSpec, Map<String, Object> info) {
            if ("=".equals(info.get("separator"))) {
                return false; // --dashboard=VALUE: picocli reads it
            }
            if (args.isEmpty() || !LOOKS_LIKE.matcher(args.peek()).matches()) {
                argSpec.setValue(((picocli.CommandLine.Model.OptionSpec) argSpec).fallbackValue());
                return true;
            }
            argSpec.setValue(args.pop());
            return true;
        }
    }
}
