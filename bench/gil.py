"""What a call that lets go of the interpreter lock costs a thread while other threads want the lock.

    python bench/gil.py [--calls 200] [--rivals 3]

The C libraries a request calls (cryptography's P-256 check of every stamp, coincurve's secp256k1
signature, pycryptodome's Keccak, a file's write) release the interpreter lock around their work, so that
other threads can run meanwhile. Alone, that costs nothing. With other threads waiting for the lock (a
server at several connections: its workers), the caller gets the lock back only when the holder gives it up,
at the switch interval (5 ms) at worst, and each such hand-over costs the caller CPU time as well (the
switches, the caches the others ran over). Each call is timed here alone and beside ``--rivals`` threads
that only want the lock (pure Python loops), in the caller's CPU time and wall time, medians of ``--calls``.
This is the part of a request's cost that grows from one connection to eight (bench/served.py), for the
simulator and the Flask echo's stamp check alike, and what serve --data-dir's writer pays again for its
write and for a request waiting for a sibling's record (bench/README.md, "Measurements recorded").
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from typing import BinaryIO

import coincurve
from Crypto.Hash import keccak
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def calls(log: BinaryIO) -> dict[str, Callable[[], object]]:
    """The calls timed: what a request makes (a stamp checked, a payload signed, a Keccak hash, a record
    written), and a hash that keeps the lock (hashlib keeps it for inputs under 2 KiB) for comparison."""
    stamp_key = ec.generate_private_key(ec.SECP256R1())
    body = b"x" * 300
    stamp = stamp_key.sign(body, ec.ECDSA(hashes.SHA256()))
    checker = stamp_key.public_key()
    signer = coincurve.PrivateKey(os.urandom(32))
    digest = os.urandom(32)
    record = os.urandom(2500)

    def write() -> None:
        log.write(record)
        log.flush()

    return {
        "P-256 stamp check (cryptography)": lambda: checker.verify(stamp, body, ec.ECDSA(hashes.SHA256())),
        "secp256k1 signature (coincurve)": lambda: signer.sign_recoverable(digest, hasher=None),
        "Keccak-256 (pycryptodome)": lambda: keccak.new(digest_bits=256, data=digest).digest(),
        "2.5 kB written and flushed": write,
        "SHA-256 (keeps the lock)": lambda: hashlib.sha256(digest).digest(),
    }


def timed(call: Callable[[], object], count: int) -> tuple[float, float]:
    """Median CPU and wall µs of one call."""
    cpu, wall = [], []
    for _ in range(count):
        started_cpu, started = time.thread_time(), time.perf_counter()
        call()
        cpu.append(time.thread_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    return statistics.median(cpu) * 1e6, statistics.median(wall) * 1e6


def rivals_running(count: int) -> Callable[[], None]:
    """``count`` threads that only want the interpreter lock; returns what stops them."""
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(100))

    threads = [threading.Thread(target=spin, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()

    def stopped() -> None:
        stop.set()
        for thread in threads:
            thread.join()

    return stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rivals", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryFile() as log:
        timed_calls = calls(log)
        alone = {name: timed(call, args.calls) for name, call in timed_calls.items()}
        stop = rivals_running(args.rivals)
        try:
            beside = {name: timed(call, args.calls) for name, call in timed_calls.items()}
        finally:
            stop()
    print(f"one call, medians of {args.calls}: alone, and beside {args.rivals} threads that want the interpreter lock")
    print(f"{'call':<36}{'CPU µs':>9}{'wall µs':>9}{'CPU µs':>10}{'wall µs':>10}{'CPU x':>7}")
    for name, (cpu, wall) in alone.items():
        rival_cpu, rival_wall = beside[name]
        print(f"{name:<36}{cpu:>9.1f}{wall:>9.1f}{rival_cpu:>10.1f}{rival_wall:>10.1f}{rival_cpu / cpu:>7.1f}")


if __name__ == "__main__":
    main()
