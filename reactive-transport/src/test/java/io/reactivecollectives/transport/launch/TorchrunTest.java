package io.reactivecollectives.transport.launch;

import io.reactivecollectives.core.testing.FreePorts;
import io.reactivecollectives.transport.rendezvous.TorchMasters;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torchrun (PyTorch's {@code torch.distributed.run}, as installed at {@code /usr/bin/python3})
 * launches two JVM ranks with {@code --no_python}; its agent already serves the store on
 * {@code MASTER_PORT} ({@code TORCHELASTIC_USE_AGENT_STORE=True}), so both ranks join it as torch
 * TCPStore clients and all-reduce. Skipped with the reason where torch is not installed.
 */
class TorchrunTest {

    private static final String PYTHON = TorchMasters.PYTHON;

    @Test
    void torchrunLaunchesTwoJvmRanksThatAllReduceThroughTheAgentStore() throws Exception {
        Assumptions.assumeTrue(TorchMasters.imports("torch.distributed.run"), "PyTorch is not installed (" + PYTHON
                + " -c 'import torch.distributed.run' failed)");
        int port = FreePorts.one();   // torchrun's store binds it later
        List<String> cmd = List.of(PYTHON, "-m", "torch.distributed.run", "--no_python", "--nnodes", "1",
                "--nproc_per_node", "2",
                // torch 1.13 under Python 3.11+ cannot parse its default "--redirects 0" (Std.NONE is not
                // iterated in a Flag enum); redirecting stderr and teeing it back avoids the parse
                "--redirects", "2", "--tee", "2", "--master_addr", "127.0.0.1", "--master_port", Integer.toString(port),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), TorchrunRankMain.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try {
            byte[] bytes = p.getInputStream().readAllBytes();
            out = new String(bytes, StandardCharsets.UTF_8);
            assertTrue(p.waitFor(55, TimeUnit.SECONDS), "torchrun did not end: " + out);
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), out);
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(out.contains("rank " + rank + " sum 3 launcher torchrun store PrefixStore embedded false"),
                    "rank " + rank + " line missing in:\n" + out);
        }
    }
}
