"""The grader's memory for reading a submission, measured side by side.

    python benchmarks/notebook_memory.py [--mb 150] [--kind attachment|figure]

The correct example submission of ex2_3_ising_perceptron with ``--mb`` MB of base64 image data
(one attachment of a markdown cell, or a figure output of a code cell), and its stripped twin
(the same notebook without it). Each is read in a fresh process by:

* ``load_submission``: pdl's one read of a submission (streamed; outputs and attachments skipped);
* ``json.loads``: the whole file parsed, as pdl read submissions before (for comparison).

Printed for each: the peak of Python allocations (tracemalloc), the process's peak resident size
(ru_maxrss, after the interpreter's own), the seconds; then the ratios big / stripped twin. The
target: ``load_submission``'s peak on the big notebook is a small multiple of its twin's,
whatever ``--mb`` (at most ``MAX_STRING``, 2 MB, of a skipped string is ever held). No
assertion: machines are noisy.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORRECT = REPO / "examples" / "submissions" / "ex2_3_ising_perceptron" / "correct.ipynb"

MEASURE = r"""
import json, resource, sys, time, tracemalloc
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from autograder.run.notebook import load_submission
path, how = Path(sys.argv[1]), sys.argv[2]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
start = time.perf_counter()
if how == "load_submission":
    data, nb = load_submission(path)
else:
    nb = json.loads(path.read_bytes())
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024
print(json.dumps({"peak": peak, "rss": rss, "seconds": seconds, "cells": len(nb["cells"])}))
"""


def write_notebooks(folder: Path, mb: int, kind: str) -> tuple[Path, Path]:
    nb = json.loads(CORRECT.read_text())
    twin = folder / "stripped.ipynb"
    twin.write_text(json.dumps(nb, indent=1))
    marker = "@@BLOB@@"
    if kind == "attachment":
        cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
        cell["attachments"] = {"photo.png": {"image/png": marker}}
    else:
        cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
        cell["outputs"] = [{"output_type": "display_data", "metadata": {}, "data": {"image/png": marker}}]
    head, tail = json.dumps(nb, indent=1).split(marker)
    big = folder / "big.ipynb"
    with open(big, "w") as fh:
        fh.write(head)
        fh.writelines(base64.b64encode(os.urandom(3 << 18)).decode() for _ in range(mb))  # 1 MB of base64 at a time
        fh.write(tail)
    return big, twin


def measure(path: Path, how: str) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, str(path), how, str(REPO)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=150)
    parser.add_argument("--kind", choices=["attachment", "figure"], default="attachment")
    args = parser.parse_args()
    mib = 2 ** 20
    with tempfile.TemporaryDirectory() as tmp:
        big, twin = write_notebooks(Path(tmp), args.mb, args.kind)
        print(f"notebook with a {args.mb} MB {args.kind}: {big.stat().st_size / mib:.1f} MB; "
              f"stripped twin: {twin.stat().st_size / mib:.2f} MB")
        for how in ("load_submission", "json.loads"):
            small, large = measure(twin, how), measure(big, how)
            print(f"{how:>16}: twin peak {small['peak'] / mib:6.1f} MB, rss +{small['rss'] / mib:6.1f} MB, "
                  f"{small['seconds']:.2f} s | big peak {large['peak'] / mib:6.1f} MB, "
                  f"rss +{large['rss'] / mib:6.1f} MB, "
                  f"{large['seconds']:.2f} s | ratio big/twin: peak {large['peak'] / small['peak']:.1f}x, "
                  f"rss {max(large['rss'], 1) / max(small['rss'], mib):.1f}x")


if __name__ == "__main__":
    main()
