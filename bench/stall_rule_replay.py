#!/usr/bin/env python3
"""Replays a stall rule on the policy's curves, without running a search.

The rule: the policy's phase ends once its best has not improved by at least
GAIN (a fraction) for PATIENCE seconds of search time. For each --csv curve
that `planner search` wrote (bench/search_paper.sh leaves them in its OUTDIR),
prints when the rule would have ended the policy, its best then, and its best
at the curve's end: the rule would have cost the search whatever the policy
found after that time.

usage: bench/stall_rule_replay.py [--gain 0.005] [--patience 60] CSV...
"""
import argparse
import csv
import sys


def replay(path, gain, patience):
    """(stop time or None, best at stop in s, best at the end in s)."""
    with open(path, newline="") as f:
        rows = [(float(r["elapsed_s"]), float(r["best_step_s"])) for r in csv.DictReader(f)]
    if not rows:
        raise ValueError("no updates")
    ref, ref_t, stop = rows[0][1], 0.0, None
    for t, best in rows:
        if t - ref_t >= patience:
            stop = t
            break
        if best < ref * (1 - gain):
            ref, ref_t = best, t
    at_stop = min(b for t, b in rows if stop is None or t <= stop)
    return stop, at_stop, rows[-1][1]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gain", type=float, default=0.005)
    p.add_argument("--patience", type=float, default=60)
    p.add_argument("csv", nargs="+")
    a = p.parse_args()
    print(f"stall rule: a gain of {100 * a.gain:g}% within {a.patience:g} s")
    for path in a.csv:
        try:
            stop, at_stop, end = replay(path, a.gain, a.patience)
        except (OSError, KeyError, ValueError) as e:
            print(f"{path}: cannot read the curve: {e}", file=sys.stderr)
            return 1
        when = "never ends it" if stop is None else f"ends it at {stop:.0f} s"
        print(f"{path}: {when}; best then {1000 * at_stop:.3f} ms, at the end {1000 * end:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
