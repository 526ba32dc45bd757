"""The viewer's threads share two memory arenas (`review.arenas`), where glibc gives each thread
one of its own: glibc's own account of its arenas (`malloc_info`) says how many there are."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

THREADS = """
import ctypes, re, sys, tempfile, threading
from review import arenas
if sys.argv[1] == "shared":
    arenas.share()
def allocate():
    kept = [bytearray(2000) for _ in range(2000)]
    ready.wait()
workers = [threading.Thread(target=allocate) for _ in range(6)]
ready = threading.Event()
for worker in workers:
    worker.start()
ready.set()
for worker in workers:
    worker.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile() as report:
    stream = libc.fopen(report.name.encode(), b"w")
    libc.malloc_info(0, ctypes.c_void_p(stream))
    libc.fclose(ctypes.c_void_p(stream))
    print(len(re.findall(rb"<heap nr=", open(report.name, "rb").read())))
"""


def arenas_after(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", THREADS, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="arenas are glibc's")
def test_threads_share_two_arenas() -> None:
    assert arenas_after("own") > 2
    assert arenas_after("shared") <= 2
