package io.reactivecollectives.testkit;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link LocalCluster} (every rank in this JVM, over loopback) for a test class. Registered on a
 * static field, one cluster serves all the class's tests and is closed after them; on an instance
 * field, every test gets a fresh one. Test methods may also take the {@link LocalCluster} as a
 * parameter.
 *
 * <pre>{@code
 * @ExtendWith(GuardsExtension.class)
 * class GradientsTest {
 *     @RegisterExtension
 *     static final LocalClusterExtension CLUSTER = LocalClusterExtension.ranks(4);
 *
 *     @Test
 *     void averages() {
 *         List<Tensor> out = CLUSTER.run(g -> g.allReduce(Tensor.fromFloats(new float[] {g.rank()}), ReduceOp.AVG));
 *         ...
 *     }
 * }
 * }</pre>
 */
public final class LocalClusterExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {

    private final int worldSize;
    private final GroupOptions options;
    private final Duration timeout;
    private volatile LocalCluster cluster;
    private volatile boolean perTest;

    private LocalClusterExtension(int worldSize, GroupOptions options, Duration timeout) {
        if (worldSize < 1) {
            throw new IllegalArgumentException("LocalClusterExtension: world size must be >= 1, got " + worldSize);
        }
        this.worldSize = worldSize;
        this.options = Objects.requireNonNull(options, "options");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * A cluster of {@code worldSize} ranks with {@link GroupOptions#defaults()} and a 60 s timeout.
     *
     * @param worldSize the number of ranks, at least 1
     * @return the extension, to register with {@code @RegisterExtension}
     */
    public static LocalClusterExtension ranks(int worldSize) {
        return new LocalClusterExtension(worldSize, GroupOptions.defaults(), Duration.ofSeconds(60));
    }

    /**
     * The same cluster with the ranks' group options.
     *
     * @param groupOptions the options every rank's group is connected with
     * @return a new extension
     */
    public LocalClusterExtension withOptions(GroupOptions groupOptions) {
        return new LocalClusterExtension(worldSize, groupOptions, timeout);
    }

    /**
     * The same cluster with another bound on starting it and on each {@link #run(Function)}.
     *
     * @param bound the longest wait
     * @return a new extension
     */
    public LocalClusterExtension withTimeout(Duration bound) {
        return new LocalClusterExtension(worldSize, options, bound);
    }

    /**
     * The running cluster.
     *
     * @return the cluster of the current test class (or test)
     * @throws IllegalStateException outside the tests of the class that registered the extension
     */
    public LocalCluster cluster() {
        LocalCluster c = cluster;
        if (c == null) {
            throw new IllegalStateException("LocalClusterExtension: no cluster running (register the extension"
                    + " with @RegisterExtension and use it from a test)");
        }
        return c;
    }

    /**
     * Runs {@code body} on every rank at once and waits, at most the timeout, for the results in
     * rank order ({@link LocalCluster#run(Function)}). For the test thread; never call it from a
     * collective's own continuation.
     *
     * @param <T> what each rank's body emits
     * @param body what every rank runs, given its group
     * @return the ranks' results in rank order
     */
    public <T> List<T> run(Function<? super ProcessGroup, ? extends Mono<T>> body) {
        return cluster().run(body).block(timeout);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = start();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (cluster == null) {
            perTest = true;
            cluster = start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (perTest) {
            close();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LocalCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return cluster();
    }

    private LocalCluster start() {
        LocalCluster c = LocalCluster.start(worldSize, options).block(timeout);
        if (c == null) {
            throw new IllegalStateException("LocalClusterExtension: " + worldSize + " ranks did not start");
        }
        return c;
    }

    private void close() {
        LocalCluster c = cluster;
        cluster = null;
        if (c != null) {
            c.close();
        }
    }
}
