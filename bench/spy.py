"""Where a served request's time goes: the bench server under py-spy while node drives one operation.

    python bench/spy.py whoami [--conns 8] [--seconds 10] [--server waitress|granian] [--top 25] [--data-dir DIR]

py-spy 0.4 (``pip install py-spy``) samples every thread of the bench server (bench/server.py,
started as py-spy's child: on this kind of machine py-spy cannot attach to a running process by
pid, but it can start one) while bench/nodeload.js sends the operation over ``--conns``
keep-alive connections, in rounds, for ``--seconds``. Printed: the share of samples in which each
function is on the stack (inclusive) and on top (self), for threads that were running (idle
samples, a worker waiting for a request, are left out with ``--idle`` off). The raw stacks stay in
bench/results/profile-OP.txt for a flame graph.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nodeclient import NodeLoad
from workload import scenario_file

ROOT = Path(__file__).resolve().parent.parent


def summarise(raw: Path, top: int) -> None:
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = [frame for frame in stack.split(";") if not frame.startswith("process ")]
        frames = [frame for frame in frames if not frame.startswith("thread ")]
        total += count
        for frame in set(frames):
            inclusive[frame] += count
        if frames:
            own[frames[-1]] += count
    print(f"{total} samples of running threads")
    print("inclusive (on the stack):")
    for frame, count in inclusive.most_common(top):
        print(f"  {100 * count / total:5.1f}%  {frame}")
    print("self (on top of the stack):")
    for frame, count in own.most_common(top):
        print(f"  {100 * count / total:5.1f}%  {frame}")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("operation", choices=("whoami", "get_activity", "create_wallet", "sign_raw_payload"))
    options.add_argument("--conns", type=int, default=8)
    options.add_argument("--seconds", type=float, default=10.0)
    options.add_argument("--server", choices=("waitress", "granian"), default="waitress")
    options.add_argument("--top", type=int, default=25)
    options.add_argument("--path", default=None, help="send to this path instead (/echo/ profiles the echo)")
    options.add_argument(
        "--data-dir", type=Path, default=None, help="the server keeps its state there (serve --data-dir)"
    )
    args = options.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    raw = ROOT / "bench" / "results" / f"profile-{args.operation}.txt"
    raw.parent.mkdir(exist_ok=True)
    command = [spy, "record", "--format", "raw", "--threads", "--subprocesses", "-r", "250", "-o", str(raw), "--"]
    command += [sys.executable, str(ROOT / "bench" / "server.py"), str(scenario_file()), "--server", args.server]
    if args.data_dir is not None:
        command += ["--data-dir", str(args.data_dir)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert server.stdout is not None
    line = ""
    while not line.startswith("http://"):  # py-spy prints its own lines first
        line = server.stdout.readline()
        if not line:
            raise SystemExit("the bench server did not start under py-spy")
    port = int(line.strip().rsplit(":", 1)[1])
    node = NodeLoad()
    try:
        node.setup(port)
        batch = 300 if args.operation != "create_wallet" else 100
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            node.build("batch", args.operation, batch)
            node.run("batch", port, args.conns, args.path)
    finally:
        node.close()
        server.send_signal(2)  # py-spy writes its file when its child ends
        server.wait(timeout=60)
    summarise(raw, args.top)


if __name__ == "__main__":
    main()
