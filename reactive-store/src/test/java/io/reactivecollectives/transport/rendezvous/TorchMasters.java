package io.reactivecollectives.transport.rendezvous;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A Python child process holding real PyTorch {@code TCPStore} masters (torch as installed at
 * {@code /usr/bin/python3}), one per {@link #newMaster()}, on ephemeral loopback ports; it also
 * sets and reads keys through torch's own client, to check that the two clients agree on keys.
 */
public final class TorchMasters implements AutoCloseable {

    /** The Python that has torch, where this machine has it. */
    public static final String PYTHON = "/usr/bin/python3";

    private static final String SCRIPT = String.join("\n",
            "import sys, datetime, torch.distributed as d",
            "stores = {}",
            "for line in sys.stdin:",
            "    cmd = line.split()",
            "    if not cmd: continue",
            "    if cmd[0] == 'new':",
            "        s = d.TCPStore('127.0.0.1', 0, is_master=True, timeout=datetime.timedelta(seconds=30))",
            "        stores[s.port] = s",
            "        print(s.port, flush=True)",
            "    elif cmd[0] == 'del':",
            "        stores.pop(int(cmd[1]), None)",
            "        print('ok', flush=True)",
            "    elif cmd[0] == 'set':",
            "        stores[int(cmd[1])].set(cmd[2], cmd[3])",
            "        print('ok', flush=True)",
            "    elif cmd[0] == 'get':",
            "        print(stores[int(cmd[1])].get(cmd[2]).decode(), flush=True)",
            "");

    private final Process process;
    private final Writer in;
    private final BufferedReader out;

    private TorchMasters(Process process) {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Whether {@code import torch.distributed} works with {@link #PYTHON}. */
    static boolean torchInstalled() {
        return imports("torch.distributed");
    }

    /** Whether {@code import <module>} works with {@link #PYTHON} (within a minute). */
    public static boolean imports(String module) {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import " + module).redirectErrorStream(true).start();
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static TorchMasters start() throws IOException {
        Process p = new ProcessBuilder(PYTHON, "-u", "-c", SCRIPT)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new TorchMasters(p);
    }

    synchronized String command(String line) {
        try {
            in.write(line + "\n");
            in.flush();
            String reply = out.readLine();
            if (reply == null) {
                throw new IllegalStateException("the torch master process ended (command: " + line + ")");
            }
            return reply;
        } catch (IOException e) {
            throw new IllegalStateException("torch master process: " + line, e);
        }
    }

    /** A fresh, empty torch TCPStore master; its port. */
    int newMaster() {
        return Integer.parseInt(command("new").trim());
    }

    void dropMaster(int port) {
        command("del " + port);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
