"""The TCP segments of a tcpdump capture, fast: the tests read captures of
thousands of segments (an 8 MiB transfer is ~9,000 frames), and scapy's
dissection of every frame cost about 5 s a capture, most of the equivalence
suite's time. Only what the tests read is decoded: IPv4/IPv6 (no extension
headers) over Ethernet, Linux cooked capture or raw IP; truncated captures
are fine (lengths come from the headers)."""
import struct

LINKTYPES = {1: 14, 101: 0, 113: 16, 276: 20}  # Ethernet, raw IP, SLL, SLL2
FIN, SYN, RST, PSH, ACK, URG, ECE, CWR = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80


class Seg:
    """One TCP segment: time (s), v6, src, dst (strings), ecn (the IP
    header's two ECN bits), ip_len (the datagram's length: IPv4 total
    length, IPv6 payload length + 40), plen (TCP payload bytes), sport,
    dport, seq, ack, flags, window (unscaled), hdr (TCP header bytes),
    opts (the option bytes as captured)."""
    __slots__ = ("time", "v6", "src", "dst", "ecn", "ip_len", "plen", "sport", "dport", "seq",
                 "ack", "flags", "window", "hdr", "opts")

    def options(self):
        """The options as (name, value), named as scapy names them: MSS,
        WScale, SAckOK, SAck (the block edges), Timestamp (value, echo);
        other kinds as (kind, raw bytes)."""
        out, o, i = [], self.opts, 0
        while i < len(o):
            kind = o[i]
            if kind == 0:
                break
            if kind == 1:
                i += 1
                continue
            if i + 1 >= len(o) or o[i + 1] < 2:
                break
            ln = o[i + 1]
            data = o[i + 2:i + ln]
            if kind == 2 and len(data) == 2:
                out.append(("MSS", struct.unpack("!H", data)[0]))
            elif kind == 3 and len(data) == 1:
                out.append(("WScale", data[0]))
            elif kind == 4:
                out.append(("SAckOK", b""))
            elif kind == 5 and len(data) % 8 == 0:
                out.append(("SAck", struct.unpack("!%dI" % (len(data) // 4), data)))
            elif kind == 8 and len(data) == 8:
                out.append(("Timestamp", struct.unpack("!II", data)))
            else:
                out.append((kind, bytes(data)))
            i += ln
        return out


def _addr4(b):
    return "%d.%d.%d.%d" % tuple(b)


def _addr6(b):
    import ipaddress
    return str(ipaddress.IPv6Address(bytes(b)))


def segments(path):
    """The TCP segments of the pcap file at path, in capture order."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError("%s: not a pcap file" % path)
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    link = struct.unpack(end + "I", data[20:24])[0] & 0xFFFF
    if link not in LINKTYPES:
        raise ValueError("%s: link type %d not handled" % (path, link))
    l2 = LINKTYPES[link]
    rec = struct.Struct(end + "IIII")
    out, pos = [], 24
    while pos + 16 <= len(data):
        sec, frac, caplen, _ = rec.unpack_from(data, pos)
        pos += 16
        frame = memoryview(data)[pos:pos + caplen]
        pos += caplen
        s = _decode(frame, l2, link)
        if s is not None:
            s.time = sec + frac / (1e9 if nano else 1e6)
            out.append(s)
    return out


def _decode(fr, l2, link):
    if link == 1:
        etype = struct.unpack_from("!H", fr, 12)[0] if len(fr) >= 14 else 0
        if etype == 0x8100 and len(fr) >= 18:
            etype, l2 = struct.unpack_from("!H", fr, 16)[0], 18
    elif link == 113:
        etype = struct.unpack_from("!H", fr, 14)[0] if len(fr) >= 16 else 0
    elif link == 276:
        etype = struct.unpack_from("!H", fr, 0)[0] if len(fr) >= 2 else 0
    else:
        etype = 0x86DD if len(fr) and fr[0] >> 4 == 6 else 0x0800
    ip = fr[l2:]
    s = Seg()
    if etype == 0x0800 and len(ip) >= 20 and ip[0] >> 4 == 4:
        ihl = (ip[0] & 15) * 4
        if ip[9] != 6 or len(ip) < ihl + 20:
            return None
        s.v6, s.ecn = False, ip[1] & 3
        s.ip_len = struct.unpack_from("!H", ip, 2)[0]
        s.src, s.dst = _addr4(ip[12:16]), _addr4(ip[16:20])
        tcp, room = ip[ihl:], s.ip_len - ihl
    elif etype == 0x86DD and len(ip) >= 60 and ip[0] >> 4 == 6:
        if ip[6] != 6:
            return None
        s.v6 = True
        s.ecn = (struct.unpack_from("!I", ip, 0)[0] >> 20) & 3
        room = struct.unpack_from("!H", ip, 4)[0]
        s.ip_len = room + 40
        s.src, s.dst = _addr6(ip[8:24]), _addr6(ip[24:40])
        tcp = ip[40:]
    else:
        return None
    (s.sport, s.dport, s.seq, s.ack, off, s.flags,
     s.window) = struct.unpack_from("!HHIIBBH", tcp, 0)
    s.hdr = (off >> 4) * 4
    s.opts = bytes(tcp[20:min(s.hdr, len(tcp))])
    s.plen = room - s.hdr
    return s
