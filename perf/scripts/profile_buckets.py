"""Sorts the samples of async-profiler's collapsed stacks (perf/scripts/ProfAgent.java) into the parts of a
rank's CPU time: the first rule whose frame appears in a sample's stack names it; samples whose leaf is a
kernel frame count as kernel time. Usage: python3 perf/scripts/profile_buckets.py /tmp/ap-cpu-*.collapsed"""
import sys, collections
rules = [
 ("compiler", ["CompileBroker::"]),
 ("gc/vm threads", ["G1", "GangWorker", "ConcurrentGCThread", "VMThread", "WatcherThread"]),
 ("leak detector", ["ResourceLeakDetector"]),
 ("reduce kernel", ["NativeReduceKernels.reduce0"]),
 ("copy to output", ["ByteCopies.copy"]),
 ("spin (epollWaitNow)", ["EpollIoHandler.epollWaitNow"]),
 ("epoll wait", ["Native.epollWait", "EpollIoHandler.epollWait"]),
 ("socket write", ["AbstractEpollChannel$AbstractEpollUnsafe.flush0", "FileDescriptor.writev"]),
 ("socket read syscall", ["Socket.recvAddress","AbstractEpollChannel.doReadBytes"]),
 ("recv buffer alloc", ["MaxMessageHandle.allocate"]),
 ("frame release", ["AbstractReferenceCountedByteBuf.release", "SimpleLeakAwareCompositeByteBuf.release"]),
 ("send: frame build", ["SocketLink.write", "CollectiveChannel.writeData"]),
 ("receive-> next step", ["Transfers$ReceiveInto$Into.complete"]),
 ("mailbox deliver", ["Mailbox.deliver"]),
 ("frame decode/route", ["LengthPrefixedDecoder.channelRead"]),
 ("low water setsockopt", ["ReceiveLowWater"]),
 ("netty tasks", ["SingleThreadEventExecutor.runAllTasks"]),
 ("event loop other", ["SingleThreadIoEventLoop.run"]),
 ("reactor schedulers", ["reactor/core/scheduler"]),
]
b = collections.Counter(); user = 0; kern = collections.Counter()
for f in sys.argv[1:]:
    for line in open(f):
        stack, n = line.rsplit(' ', 1); n = int(n)
        fr = stack.split(';'); k = fr[-1].endswith('_[k]')
        name = "other"
        for label, keys in rules:
            if any(any(key in x for x in fr) for key in keys): name = label; break
        (kern if k else b)[name] += n
        if not k: user += n
print("user", user, "kernel", sum(kern.values()))
for k, v in b.most_common(): print(f"{v:6d} {100*v/user:5.1f}%  kernel {kern[k]:6d}  {k}")
