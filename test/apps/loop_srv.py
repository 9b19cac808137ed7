#!/usr/bin/python3
"""loop_srv.py 4|6 PORT: a server listening on the wildcard (0.0.0.0, or a
dual-stack [::]) for test_loopback.sh: forks after listen (parent and child
both accept, as nginx's workers do), each waits in epoll (selectors) on the
non-blocking listener and answers each connection's line with
"PID LOCAL PEER LINE" (getsockname, accept's peer), then closes it. Prints
"listening PID" once per process."""
import os
import selectors
import socket
import sys

fam, port = sys.argv[1], int(sys.argv[2])
if fam == "6":
    s = socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True)
else:
    s = socket.create_server(("0.0.0.0", port))
s.setblocking(False)
os.fork()
sel = selectors.EpollSelector()
sel.register(s, selectors.EVENT_READ)
print("listening", os.getpid(), flush=True)
while True:
    for _ in sel.select(timeout=60):
        try:
            c, peer = s.accept()
        except BlockingIOError:
            continue  # the other process took it
        c.setblocking(True)
        c.settimeout(5)
        line = c.recv(200)
        c.sendall(b"%d %s %s %s" % (os.getpid(), c.getsockname()[0].encode(),
                                    peer[0].encode(), line))
        c.close()
