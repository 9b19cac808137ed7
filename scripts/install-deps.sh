#!/usr/bin/env bash
# Installs the Debian 12 packages skops builds and tests with, only if missing;
# --check only names the missing ones (and fails).
set -euo pipefail
pkgs=(meson ninja-build pkg-config gcc clang llvm lld libclang-rt-14-dev
      libelf-dev zlib1g-dev libbpf-dev linux-libc-dev check
      dpdk-dev libdpdk-dev bpftool iproute2 socat tcpdump nftables
      python3 python3-scapy iperf3 netcat-openbsd clang-format ethtool iputils-ping
      curl gnuplot-nox gcovr)
pkgs+=(nginx-light redis-server redis-tools wrk) # test/apps: unmodified servers under the shim
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${1:-}" = --check ] || [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
