#!/usr/bin/env python3
"""A known Python chain for bpfprof's tests: outer -> middle -> hot, the
hot loop pure Python (no C call below it). Usage: py_chain.py SECONDS [THREADS]
With THREADS > 0, each thread runs its own chain (t<N>_outer -> ...)."""
import sys
import threading
import time


def hot(deadline):
    n = 0
    while time.monotonic() < deadline:
        for i in range(2000):
            n += i * i
    return n


def middle(deadline):
    return hot(deadline)


def outer(deadline):
    return middle(deadline)


THREAD_CHAIN = """
def t{k}_hot(deadline):
    n = 0
    while time.monotonic() < deadline:
        for i in range(2000):
            n += i * i
    return n


def t{k}_middle(deadline):
    return t{k}_hot(deadline)


def t{k}_outer(deadline):
    return t{k}_middle(deadline)
"""


def thread_chain(k):
    """Thread k's own outer -> middle -> hot, named t<k>_*."""
    names = {"time": time}
    exec(compile(THREAD_CHAIN.format(k=k), "py_chain_t%d.py" % k, "exec"), names)
    return names["t%d_outer" % k]


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    nthreads = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    deadline = time.monotonic() + secs
    if nthreads:
        ts = [threading.Thread(target=thread_chain(k), args=(deadline,)) for k in range(nthreads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    else:
        outer(deadline)


if __name__ == "__main__":
    main()
