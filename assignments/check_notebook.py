"""Run your notebook top to bottom and print its public checks, from a terminal.

    python check_notebook.py ex3_2_nngp.ipynb

Needs only the students' environment (requirements.txt beside this file), no course tools.
Prints each check's line (``ok`` / ``not yet`` / ``FAIL``), each figure still waiting for a
function (not counted as a check) and each cell that stopped with an error; exits 0 when every
check says ok. The public checks test your functions on a few
inputs only: hidden tests with other inputs decide the grade.
"""

import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

MARKS = ("ok ", "not yet ", "FAIL ")


def main(path: str) -> int:
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as sockets:
        # IPC sockets in a private folder rather than TCP ports on localhost (Windows has only TCP)
        ipc = {"KernelManager": {"transport": "ipc", "ip": os.path.join(sockets, "kernel")}}
        client = NotebookClient(nb, config=Config(ipc if os.name == "posix" else {}), kernel_name="python3",
                                timeout=600, allow_errors=True,
                                resources={"metadata": {"path": str(Path(path).resolve().parent)}})
        client.execute()
    checks, figures, errors = [], [], []
    for number, cell in enumerate(nb.cells):
        # a figure cell (`%%figure`) says "not yet" too, while it waits for a function: not a check
        lines = figures if cell.get("source", "").lstrip().startswith("%%figure") else checks
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                lines += [ln for ln in out.get("text", "").splitlines() if ln.startswith(MARKS)]
            elif out.get("output_type") == "error":
                errors.append(f"cell {number}: {out.get('ename')}: {out.get('evalue')}")
    for line in checks + [f"figure   {ln}" for ln in figures] + [f"error   {e}" for e in errors]:
        print(line)
    passed = sum(ln.startswith("ok ") for ln in checks)
    print(f"\n{passed}/{len(checks)} public checks pass." +  # the words of `pdl check`
          (" Public checks are a first test only; hidden tests use other inputs." if checks else
           " No public checks ran."))
    return 0 if checks and passed == len(checks) and not errors else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
