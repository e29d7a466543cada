"""Benchmark: ``rami-lan verify`` on whole record files: CPU time and peak memory.

Each file is verified in a fresh process (``rami-lan verify FILE`` as a player runs it),
which reports its CPU time (``time.process_time``) and peak resident memory
(``VmHWM``, Linux); the interpreter's own start (imports included) is measured apart and
subtracted from neither (the ``baseline_*`` rows give it). Files:

* ``plain`` / ``private``: real records of in-process tables (3 and 4 seats, ``rami``
  to 100 points: several rounds, eliminations), and ``private_x<k>``: the private
  match's rounds repeated and renumbered up to the 32 MB cap, the **largest record
  ``check_record`` accepts** (its rounds do not chain, so verify answers 1 and stops
  after ``MAX_FAILING_ROUNDS`` failing rounds; its ``_every_round`` row checks them all,
  the work a legal record of that size costs: every mask and lock step, every key,
  every round replayed);
* crafted oversized files: 33 MB (refused by its size before reading), 31 MB of
  ``0,`` (refused by its count of values before parsing), 30 MB of nesting, a record
  with 2.4 million values of padding.

Prints one JSON object (times in s, memory in MB).

    cd /work/main && nice python -m benchmarks.verify_records
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

_CHILD = r"""
import sys, time, io, contextlib
t = time.process_time()
from rami_lan.cli.main import main
if len(sys.argv) > 2:  # check every round to the end, as for a legal record of this size
    import rami_lan.net.record as R
    R.MAX_FAILING_ROUNDS = 10**9
err = io.StringIO()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
    code = main(["verify", sys.argv[1]]) if sys.argv[1] != "-" else 0
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(code, time.process_time() - t, hwm / 1024, len(err.getvalue().strip().splitlines()))
"""


def _measure(path: str, *, to_the_end: bool = False) -> dict[str, Any]:
    argv = [sys.executable, "-c", _CHILD, path] + (["all"] if to_the_end else [])
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
    return {"exit": int(out[0]), "cpu_s": round(float(out[1]), 2), "peak_mb": round(float(out[2]), 1),
            "stderr_lines": int(out[3])}


def _records() -> dict[str, dict[str, Any]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from record_tables import RecordingTable

    out = {}
    for name, private, seats in (("plain", False, 3), ("private", True, 4)):
        t = RecordingTable(variant="rami", seats=seats, limit=100, private=private)
        t.start()
        t.run()
        out[name] = t.record
    return out


def _renumbered(base: dict[str, Any], target: int) -> dict[str, Any]:
    """``base``'s rounds repeated (round numbers 1, 2, 3...) up to ``target`` bytes."""
    from rami_lan.net.record import MAX_ROUNDS

    rec = copy.deepcopy(base)
    size = len(json.dumps(base))
    per_round = size / len(base["rounds"])
    n = min(MAX_ROUNDS, int(target / per_round))
    rec["rounds"] = [dict(base["rounds"][k % len(base["rounds"])], round_no=k + 1) for k in range(n)]
    return rec


def main(argv: list[str] | None = None) -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    from rami_lan.net.record import MAX_RECORD_BYTES

    rows: dict[str, Any] = {"baseline": _measure("-")}
    with tempfile.TemporaryDirectory() as folder:
        files: dict[str, bytes] = {}
        recs = _records()
        for name, rec in recs.items():
            files[name] = json.dumps(rec).encode()
        big = _renumbered(recs["private"], MAX_RECORD_BYTES - 512 * 1024)
        files[f"private_x{len(big['rounds'])}"] = json.dumps(big).encode()
        files["crafted_33MB"] = json.dumps({**recs["plain"], "pad": "a" * (33 * 2**20)}).encode()
        files["crafted_31MB_zeros"] = (json.dumps(recs["plain"])[:-1] + ', "pad": ['
                                       + "0," * (31 * 2**19) + "0]}").encode()
        files["crafted_30MB_nesting"] = b"[" * (15 * 2**20) + b"]" * (15 * 2**20)
        files["crafted_2.4M_values"] = (json.dumps(recs["plain"])[:-1] + ', "pad": ['
                                        + "0," * 2_400_000 + "0]}").encode()
        for name, data in files.items():
            path = Path(folder) / f"{name}.json"
            path.write_bytes(data)
            rows[name] = {"mb": round(len(data) / 2**20, 2), **_measure(str(path))}
            if name in recs:
                rows[name]["rounds"] = len(recs[name]["rounds"])
            if name.startswith("private_x"):  # what a legal record of 32 MB costs: every round
                rows[name + "_every_round"] = {"mb": rows[name]["mb"],
                                               **_measure(str(path), to_the_end=True)}
    print(json.dumps({"benchmark": "verify_records", "rows": rows}))


if __name__ == "__main__":
    main()
