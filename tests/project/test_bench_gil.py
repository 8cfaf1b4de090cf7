"""bench/gil.py, the measure bench/README.md's recorded data-directory costs cite for what eight connections add: it runs
and prints each call alone and beside threads that want the interpreter lock (no figure is asserted)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_the_interpreter_lock_bench_runs_and_prints_every_call():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "gil.py"), "--calls", "3", "--rivals", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    rows = done.stdout.splitlines()
    assert rows[0].startswith("one call, medians of 3: alone, and beside 1 threads")
    for name in ("P-256 stamp check", "secp256k1 signature", "Keccak-256", "2.5 kB written and flushed", "SHA-256"):
        row = next(r for r in rows if r.startswith(name))
        assert len(row[36:].split()) == 5, row  # CPU and wall alone, beside, and the ratio
