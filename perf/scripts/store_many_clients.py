#!/usr/bin/python3
"""PyTorch's TCPStore with many clients (issue 17), the layout of StoreManyClients: P client processes each
connect C clients at once (threads; the time until all are connected is the set-up time; with
--start-method spawn the processes are fresh interpreters that import torch, as separately launched ranks are,
and "all_connected_s" includes that), then every client
adds 1 to one counter N times, one at a time; all processes start adding together.
Usage: store_many_clients.py --processes 8 --clients 125 --adds 200"""
import argparse, time, threading, multiprocessing as mp
from datetime import timedelta
import torch.distributed as dist

def child(port, clients, adds, q_ready, q_go, q_done):
    stores = [None] * clients
    def connect(i):
        stores[i] = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=300))
    t0 = time.perf_counter()
    ts = [threading.Thread(target=connect, args=(i,)) for i in range(clients)]
    for t in ts: t.start()
    for t in ts: t.join()
    q_ready.put(time.perf_counter() - t0)
    q_go.get()
    def run(s):
        for _ in range(adds): s.add("counter", 1)
    ts = [threading.Thread(target=run, args=(s,)) for s in stores]
    for t in ts: t.start()
    for t in ts: t.join()
    q_done.put(1)

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--processes", type=int, default=8); p.add_argument("--clients", type=int, default=125)
    p.add_argument("--adds", type=int, default=200); p.add_argument("--port", type=int, default=29612)
    p.add_argument("--start-method", default="fork", choices=["fork", "spawn"],
                   help="spawn: fresh interpreters that import torch, as separately launched ranks do")
    a = p.parse_args()
    mp.set_start_method(a.start_method)
    master = dist.TCPStore("127.0.0.1", a.port, is_master=True, timeout=timedelta(seconds=300))
    q_ready, q_go, q_done = mp.Queue(), mp.Queue(), mp.Queue()
    t0 = time.perf_counter()
    ps = [mp.Process(target=child, args=(a.port, a.clients, a.adds, q_ready, q_go, q_done)) for _ in range(a.processes)]
    for x in ps: x.start()
    connect = max(q_ready.get() for _ in ps)
    startup = time.perf_counter() - t0
    t1 = time.perf_counter()
    for _ in ps: q_go.put(1)
    for _ in ps: q_done.get()
    seconds = time.perf_counter() - t1
    for x in ps: x.join()
    total = a.processes * a.clients * a.adds
    ok = int(master.get("counter")) == total
    print(f"torch({a.start_method}) processes {a.processes} clients/process {a.clients} connect_s(slowest process) {connect:.3f}"
          f" all_connected_s(incl. process start) {startup:.2f} adds {total} seconds {seconds:.2f}"
          f" adds_per_s {total / seconds:.0f} counter_ok {ok} via tcp")
