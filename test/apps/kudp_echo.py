# kudp_echo.py ADDR PORT: the kernel's UDP echo for test_udp (each datagram
# back to its sender, unchanged); "up" once bound.
import socket
import sys

fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
s.bind((sys.argv[1], int(sys.argv[2])))
print("up", flush=True)
while True:
    d, a = s.recvfrom(65536)
    s.sendto(d, a)
