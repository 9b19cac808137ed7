#!/usr/bin/python3
"""inherit_srv.py PORT: for test_inherit.sh, under the shim: listens on
0.0.0.0:PORT (prints "listening"), accepts one connection and makes its fd
inheritable, then hands it to children libc starts past the shim's fork
hook: system()'s shell writes "from system" into it, a popen()ed shell
"from popen" (pclose waits for it); then the parent writes "from the
parent" and closes. Exit 0, or 1 with the failing step on stderr."""
import ctypes
import os
import socket
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.popen.restype = ctypes.c_void_p
libc.popen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.pclose.argtypes = [ctypes.c_void_p]

s = socket.create_server(("0.0.0.0", int(sys.argv[1])))
print("listening", flush=True)
c, _ = s.accept()
fd = c.fileno()
os.set_inheritable(fd, True)
rc = libc.system(b"echo 'from system' >&%d" % fd)
if rc != 0:
    sys.exit("system: status %#x" % rc)
p = libc.popen(b"echo 'from popen' >&%d" % fd, b"r")
if not p:
    sys.exit("popen: errno %d" % ctypes.get_errno())
rc = libc.pclose(p)
if rc != 0:
    sys.exit("pclose: status %#x" % rc)
c.sendall(b"from the parent\n")
c.close()
