#!/usr/bin/python3
"""aio_echo.py HOST PORT: an asyncio echo server (epoll, non-blocking accept
and sockets), run under skops-run by test_shim.sh. Prints "listening"."""
import asyncio
import sys


async def handle(r, w):
    while True:
        d = await r.read(65536)
        if not d:
            break
        w.write(d)
        await w.drain()
    w.close()


async def main():
    srv = await asyncio.start_server(handle, sys.argv[1], int(sys.argv[2]))
    print("listening", flush=True)
    async with srv:
        await srv.serve_forever()


asyncio.run(main())
