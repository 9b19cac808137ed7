#!/usr/bin/python3
"""reuse_srv.py ADDR PORT [udp]: for test_inherit.sh: binds ADDR:PORT with
SO_REUSEPORT and listens; prints "listening" and answers each connection
(with udp: each datagram) with "PID\\n" until killed, or prints
"EADDRINUSE" and exits 0 when the bind is refused (another user's group
holds the port)."""
import errno
import os
import socket
import sys

udp = sys.argv[3:] == ["udp"]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError as e:
    if e.errno != errno.EADDRINUSE:
        raise
    print("EADDRINUSE", flush=True)
    sys.exit(0)
print("listening", os.getpid(), flush=True)
while udp:
    _, a = s.recvfrom(100)
    s.sendto(b"%d\n" % os.getpid(), a)
s.listen(16)
while True:
    c, _ = s.accept()
    c.sendall(b"%d\n" % os.getpid())
    c.close()
