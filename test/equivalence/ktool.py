#!/usr/bin/python3
"""Kernel endpoint for the equivalence runs: what skcat --info is for skops.

ktool.py client HOST PORT SEND_BYTES | server PORT SEND_BYTES [--v6]
Connects (or accepts one), sends SEND_BYTES, reads until EOF, then prints one
JSON object: buffer sizes, congestion control and tcp_info right after the
handshake and at the end, and the largest cwnd seen while sending.
"""
import json
import socket
import struct
import sys
import threading
import time

TCP_INFO = 11
TCP_CONGESTION = 13
TCP_WINDOW_CLAMP = 10


def tcp_info(sock):
    # struct tcp_info (linux/tcp.h): u8 x8, u32 rto@8 .. snd_ssthresh@76, snd_cwnd@80,
    # rcv_rtt@92, rcv_space@96, total_retrans@100
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 104)
    state, ca_state, retransmits = raw[0], raw[1], raw[2]
    wscale = raw[6]
    rto, _ato, snd_mss, rcv_mss = struct.unpack_from("<4I", raw, 8)
    rtt, rttvar, ssthresh, cwnd, advmss = struct.unpack_from("<5I", raw, 68)
    rcv_rtt, rcv_space, total_retrans = struct.unpack_from("<3I", raw, 92)
    return {
        "state": state, "ca_state": ca_state, "retransmits": retransmits,
        "snd_wscale": wscale & 0xF, "rcv_wscale": wscale >> 4,
        "rto_us": rto, "snd_mss": snd_mss, "rcv_mss": rcv_mss,
        "srtt_us": rtt, "rttvar_us": rttvar, "snd_ssthresh": ssthresh,
        "snd_cwnd": cwnd, "advmss": advmss, "total_retrans": total_retrans,
        "rcv_rtt_us": rcv_rtt, "rcv_space": rcv_space,
    }


def snapshot(sock):
    cc = sock.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16)
    return {
        "sndbuf": sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
        "rcvbuf": sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
        # the largest window the buffer offers (Linux sets it with rcvbuf)
        "window_clamp": sock.getsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP),
        "cc": cc.split(b"\0", 1)[0].decode(),
        "info": tcp_info(sock),
    }


def transfer(sock, send_bytes, deadline):
    """Send and receive at once (both ends send), as skcat does."""
    out = {"established": snapshot(sock), "max_cwnd": 0, "received": 0}
    sock.settimeout(max(0.1, deadline - time.monotonic()))

    def reader():
        while True:
            data = sock.recv(65536)
            if not data:
                break
            out["received"] += len(data)

    rx = threading.Thread(target=reader)
    rx.start()
    chunk = b"\x5a" * 65536
    sent = 0
    while sent < send_bytes:
        sent += sock.send(chunk[: min(len(chunk), send_bytes - sent)])
        out["max_cwnd"] = max(out["max_cwnd"], tcp_info(sock)["snd_cwnd"])
    out["end"] = snapshot(sock)
    sock.shutdown(socket.SHUT_WR)
    rx.join(max(0.1, deadline - time.monotonic()))
    out["closed"] = snapshot(sock)  # what autotuning left, before close
    out["sent"] = sent
    return out


def main(argv):
    v6 = "--v6" in argv
    args = [a for a in argv if a != "--v6"]
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    deadline = time.monotonic() + 30
    if args[0] == "client":
        host, port, send_bytes = args[1], int(args[2]), int(args[3])
        sock = socket.socket(fam, socket.SOCK_STREAM)
        sock.settimeout(20)
        sock.connect((host, port))
    else:
        port, send_bytes = int(args[1]), int(args[2])
        lsock = socket.socket(fam, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(("::" if v6 else "0.0.0.0", port))
        lsock.listen(4)
        lsock.settimeout(25)
        sock, _ = lsock.accept()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    result = transfer(sock, send_bytes, deadline)
    sock.close()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
