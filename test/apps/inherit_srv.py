#!/usr/bin/python3
"""inherit_srv.py PORT: for test_inherit.sh, under the shim: first a
system()ed Python reads an eventfd of the program's own; then listens on
0.0.0.0:PORT (prints "listening"), accepts one connection and makes its fd
inheritable, then hands it to children libc starts past the shim's fork
hook: system()'s shell writes "from system" into it, a popen()ed shell
"from popen" (pclose waits for it), a system()ed Python the O_NONBLOCK
the parent set ("O_NONBLOCK 1"); then the parent writes "from the
parent", popen()s a late helper and closes its copy at once; the helper
writes "from a late helper" 0.3 s later and its exit closes the socket.
Exit 0, or 1 with the failing step on stderr."""
import ctypes
import os
import socket
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.popen.restype = ctypes.c_void_p
libc.popen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.pclose.argtypes = [ctypes.c_void_p]

# an eventfd of the program's own reaches a system()ed child untouched
# (skopsd answers ENOTSOCK for it), and the child's shim, having found no
# socket, keeps no connection to skopsd (no socket fd open)
efd = os.eventfd(5)
os.set_inheritable(efd, True)
os.environ["EFDCHECK"] = (
    "import os, sys\n"
    "if os.eventfd_read(%d) != 5: sys.exit('the eventfd changed')\n"
    "fds = []\n"
    "for f in os.listdir('/proc/self/fd'):\n"
    "    try: fds.append(os.readlink('/proc/self/fd/' + f))\n"
    "    except OSError: pass  # listdir's own fd\n"
    "if any(l.startswith('socket:') for l in fds): sys.exit('connected: %%s' %% fds)\n"
    % efd)
rc = libc.system(b'/usr/bin/python3 -c "$EFDCHECK"')
if rc != 0:
    sys.exit("system: the child with the program's own eventfd failed (status %#x)" % rc)
os.close(efd)

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
# the parent's O_NONBLOCK reaches the child, as the kernel's open file's does
c.setblocking(False)
os.environ["NBCHECK"] = ("import fcntl, os\n"
                         "nb = fcntl.fcntl(%d, fcntl.F_GETFL) & os.O_NONBLOCK\n"
                         "os.write(%d, b'O_NONBLOCK %%d\\n' %% bool(nb))\n" % (fd, fd))
rc = libc.system(b'/usr/bin/python3 -c "$NBCHECK"')
if rc != 0:
    sys.exit("system (O_NONBLOCK): status %#x" % rc)
c.setblocking(True)
c.sendall(b"from the parent\n")
# A late helper: popen's shell runs without the shim and sleeps, and only
# the image it then execs (with the shim) takes the socket, while the
# parent has closed its copy at once: the shim's ticket keeps the socket
# for it, as the kernel's reference from the child's fd would.
shim = os.environ["LD_PRELOAD"].encode()
os.environ["LD_PRELOAD"] = ""
p = libc.popen(b"sleep 0.3; LD_PRELOAD=%s exec sh -c 'echo from a late helper >&%d'"
               % (shim, fd), b"r")
os.environ["LD_PRELOAD"] = shim.decode()
if not p:
    sys.exit("popen (late helper): errno %d" % ctypes.get_errno())
c.close()
rc = libc.pclose(p)
if rc != 0:
    sys.exit("pclose (late helper): status %#x" % rc)
