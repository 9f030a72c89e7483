#!/usr/bin/python3
"""PyTorch's TCPStore with many clients (issue 17), the layout of StoreManyClients: P client processes each
connect C clients at once (threads; the time until all are connected is the set-up time; with
--start-method spawn the processes are fresh interpreters that import torch, as separately launched ranks are,
and "all_connected_s" includes that), then every client
adds 1 to one counter N times, one at a time; all processes start adding together.
With --workload keys (issue 44's start-up load) every client instead sets its own key, reads it back, waits for
and reads the next client's key and adds 1 to the counter once (every value checked), and the master's resident
memory is given before the clients connect, at its peak and after they closed.
Usage: store_many_clients.py --processes 8 --clients 125 --adds 200 [--workload keys]"""
import argparse, time, threading, multiprocessing as mp
from datetime import timedelta
import torch.distributed as dist

def value(g):
    return g.to_bytes(8, "big") + bytes(((g * 31 + i) & 0xFF) for i in range(8, 56))

def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1

def child(port, clients, adds, q_ready, q_go, q_done, workload="adds", index=0, total=0, q_close=None):
    stores = [None] * clients
    def connect(i):
        stores[i] = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=300))
    t0 = time.perf_counter()
    ts = [threading.Thread(target=connect, args=(i,)) for i in range(clients)]
    for t in ts: t.start()
    for t in ts: t.join()
    q_ready.put(time.perf_counter() - t0)
    q_go.get()
    wrong = [0]
    def run(s):
        for _ in range(adds): s.add("counter", 1)
    def keys(s, g):
        nxt = (g + 1) % total
        s.set(f"key/{g}", value(g))
        if s.get(f"key/{g}") != value(g): wrong[0] += 1
        if s.get(f"key/{nxt}") != value(nxt): wrong[0] += 1
        s.add("counter", 1)
    if workload == "keys":
        ts = [threading.Thread(target=keys, args=(s, index * clients + i)) for i, s in enumerate(stores)]
    else:
        ts = [threading.Thread(target=run, args=(s,)) for s in stores]
    for t in ts: t.start()
    for t in ts: t.join()
    q_done.put(wrong[0])
    if q_close is not None:
        q_close.get()  # the master's memory is read with every client connected

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--processes", type=int, default=8); p.add_argument("--clients", type=int, default=125)
    p.add_argument("--adds", type=int, default=200); p.add_argument("--port", type=int, default=29612)
    p.add_argument("--start-method", default="fork", choices=["fork", "spawn"],
                   help="spawn: fresh interpreters that import torch, as separately launched ranks do")
    p.add_argument("--workload", default="adds", choices=["adds", "keys"])
    a = p.parse_args()
    mp.set_start_method(a.start_method)
    rss_before = rss_mib()
    peak = [rss_before]; sampling = [True]
    def sample():
        while sampling[0]:
            peak[0] = max(peak[0], rss_mib()); time.sleep(0.05)
    threading.Thread(target=sample, daemon=True).start()
    master = dist.TCPStore("127.0.0.1", a.port, is_master=True, timeout=timedelta(seconds=300))
    q_ready, q_go, q_done, q_close = mp.Queue(), mp.Queue(), mp.Queue(), mp.Queue()
    keys = a.workload == "keys"
    t0 = time.perf_counter()
    ps = [mp.Process(target=child, args=(a.port, a.clients, a.adds, q_ready, q_go, q_done, a.workload, i,
                                               a.processes * a.clients, q_close if keys else None))
          for i in range(a.processes)]
    for x in ps: x.start()
    connect = max(q_ready.get() for _ in ps)
    startup = time.perf_counter() - t0
    t1 = time.perf_counter()
    for _ in ps: q_go.put(1)
    wrong = sum(q_done.get() for _ in ps)
    seconds = time.perf_counter() - t1
    with_clients = rss_mib()
    if keys:
        for _ in ps: q_close.put(1)
    for x in ps: x.join()
    total = a.processes * a.clients * (1 if keys else a.adds)
    ok = int(master.get("counter")) == total
    if keys:
        time.sleep(0.5); sampling[0] = False
        print(f"torch({a.start_method}) keys processes {a.processes} clients {a.processes * a.clients}"
              f" connect_s(slowest process) {connect:.3f} ops {4 * total} seconds {seconds:.2f}"
              f" ops_per_s {4 * total / seconds:.0f} wrong {wrong} counter_ok {ok} server_rss_mib before {rss_before}"
              f" peak {peak[0]} with_clients {with_clients} after {rss_mib()} via tcp")
        raise SystemExit(0 if ok and wrong == 0 else 1)
    print(f"torch({a.start_method}) processes {a.processes} clients/process {a.clients} connect_s(slowest process) {connect:.3f}"
          f" all_connected_s(incl. process start) {startup:.2f} adds {total} seconds {seconds:.2f}"
          f" adds_per_s {total / seconds:.0f} counter_ok {ok} via tcp")
