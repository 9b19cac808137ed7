#!/usr/bin/python3
"""kecho.py HOST PORT: the kernel-side echo server of test_programs.sh, one
thread per connection (recv, sendall; the peer's FIN is answered with ours
once everything is echoed). Prints "listening".

Not socat's PIPE echo: that one socat writes 8 KiB blocks into a pipe only it
drains, so once the pipe is nearly full (its TCP send queue held back by the
peer's window) the write blocks forever and the echo stops (seen on a loaded
machine: the echo process in anon_pipe_write, its send queue empty, the
peer's window open)."""
import socket
import socketserver
import sys


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while True:
            d = self.request.recv(65536)
            if not d:
                break
            self.request.sendall(d)
        self.request.shutdown(socket.SHUT_WR)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


with Server((sys.argv[1], int(sys.argv[2])), Echo) as srv:
    print("listening", flush=True)
    srv.serve_forever()
