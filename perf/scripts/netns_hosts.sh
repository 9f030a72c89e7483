#!/usr/bin/env bash
# netns_hosts.sh: N "hosts" on this machine as Linux network namespaces, for runs across machines.
#
#   perf/scripts/netns_hosts.sh [--hosts N] [--rate 1gbit] [--debian-hostname] [--keep-going] -- CMD...
#
# --keep-going: when one host's command fails, let the others run on (by default they are stopped).
#
# Builds one switch namespace (rc-sw-$$) with a bridge and N host namespaces (rc-h<i>-$$), each
# with loopback, one veth link to the bridge and an address in the private 10.77.<k>.0/24 chosen
# for this run (RC_NETNS_NET=10.77.<k> fixes it), an own /etc/hosts (through ip-netns' /etc/netns/<name>/hosts) naming every host
# h0..h<N-1>, and, with --rate, a tbf cap on its link in both directions (netem does not work on
# these machines; tbf and htb do). With --debian-hostname each host's own name maps to 127.0.1.1
# in its /etc/hosts, as Debian installs it (the case where a rank must not publish loopback).
# Then runs CMD once per host, all at once, inside that host's namespace and a UTS namespace with
# hostname h<i>; in CMD, {host} is replaced by the host's index, {hosts} by N and {name} by its
# name. Exits with the first non-zero status of the CMDs (the other hosts' commands are then
# stopped) and always tears
# everything down (trap), failures included. Traffic stays inside the namespaces it created.
# Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN); prints "netns_hosts: unavailable: <why>" and exits 77
# where namespaces cannot be made.
#
# Example, 2 hosts x 2 ranks at 1 Gbit/s:
#   perf/scripts/netns_hosts.sh --hosts 2 --rate 1gbit -- bin/collectives-run --nproc-per-node 2 \
#       --nnodes {hosts} --node-rank {host} --master-addr h0 --master-port 29500 -- \
#       io.reactivecollectives.samples.examples.CollectivesCheck
set -uo pipefail

HOSTS=2
RATE=""
DEBIAN=0
KEEP_GOING=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --hosts) HOSTS="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    --debian-hostname) DEBIAN=1; shift ;;
    --keep-going) KEEP_GOING=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "netns_hosts: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $# -gt 0 ]] || { echo "netns_hosts: no command after --" >&2; exit 2; }
[[ "$HOSTS" =~ ^[0-9]+$ && "$HOSTS" -ge 1 && "$HOSTS" -le 16 ]] || { echo "netns_hosts: --hosts 1..16" >&2; exit 2; }

TAG="$$"
SW="rc-sw-$TAG"
NET="${RC_NETNS_NET:-10.77.$(( TAG % 200 + 20 ))}"   # RC_NETNS_NET=10.77.N fixes it (certificates naming the hosts' addresses)
created=()

teardown() {
  local ns
  for ns in "${created[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns del "$ns" 2>/dev/null
    rm -rf "/etc/netns/$ns"
  done
}
trap teardown EXIT
trap 'exit 130' INT TERM

unavailable() { echo "netns_hosts: unavailable: $*" >&2; exit 77; }
[[ $(id -u) -eq 0 ]] || unavailable "needs root"
command -v ip >/dev/null || unavailable "no ip command (iproute2)"
ip netns add "$SW" 2>/dev/null || unavailable "cannot create a network namespace"
created+=("$SW")
ip -n "$SW" link add br0 type bridge || unavailable "cannot create a bridge"
ip -n "$SW" link set br0 up
ip -n "$SW" link set lo up

hosts_file=""
for ((i = 0; i < HOSTS; i++)); do hosts_file+="$NET.$((10 + i)) h$i"$'\n'; done

for ((i = 0; i < HOSTS; i++)); do
  ns="rc-h$i-$TAG"
  ip netns add "$ns" || exit 1
  created+=("$ns")
  ip link add "sw$i-$TAG" type veth peer name "eth0-$TAG" || exit 1
  ip link set "sw$i-$TAG" netns "$SW"
  ip link set "eth0-$TAG" netns "$ns"
  ip -n "$ns" link set "eth0-$TAG" name eth0
  ip -n "$SW" link set "sw$i-$TAG" master br0 up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$NET.$((10 + i))/24" dev eth0
  ip -n "$ns" link set eth0 up
  if [[ -n "$RATE" ]]; then
    # both directions of the host's link: host -> switch on eth0, switch -> host on the switch's end
    ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$RATE" burst 256kb latency 50ms || exit 1
    ip netns exec "$SW" tc qdisc add dev "sw$i-$TAG" root tbf rate "$RATE" burst 256kb latency 50ms || exit 1
  fi
  mkdir -p "/etc/netns/$ns"
  {
    echo "127.0.0.1 localhost"
    if [[ $DEBIAN -eq 1 ]]; then
      echo "127.0.1.1 h$i"
      printf '%s' "$hosts_file" | grep -v " h$i\$"
    else
      printf '%s' "$hosts_file"
    fi
  } > "/etc/netns/$ns/hosts"
done

pids=()
for ((i = 0; i < HOSTS; i++)); do
  ns="rc-h$i-$TAG"
  cmd=()
  for a in "$@"; do a="${a//\{host\}/$i}"; a="${a//\{hosts\}/$HOSTS}"; a="${a//\{name\}/h$i}"; cmd+=("$a"); done
  ip netns exec "$ns" unshare --uts bash -c 'hostname "$0"; export HOSTNAME="$0"; exec "$@"' "h$i" "${cmd[@]}" \
    > >(sed -u "s/^/[h$i] /") 2>&1 &
  pids+=($!)
done
status=0
for _ in "${pids[@]}"; do
  wait -n; s=$?
  if [[ $s -ne 0 && $status -eq 0 ]]; then
    status=$s
    # one host failed: the others would wait for it until their timeouts; stop them now
    [[ $KEEP_GOING -eq 1 ]] && continue
    for ((i = 0; i < HOSTS; i++)); do ip netns pids "rc-h$i-$TAG" 2>/dev/null | xargs -r kill 2>/dev/null; done
  fi
done
exit "$status"
