#!/usr/bin/env python3
"""Replays a stall rule on the policy's curves, without running a search.

The rule: the policy's phase ends once its best has not improved by at least
GAIN (a fraction) for PATIENCE seconds of search time, or, before its first
such gain, for FIRST seconds (`planner search --patience-first`; 0: PATIENCE).
For each --csv curve that `planner search` wrote (bench/search_paper.sh leaves
them in its OUTDIR), prints when the policy's best first gained GAIN on the
best after its first update (a baseline's, unless that update beat them all),
when the rule would have ended the policy, its best then, and its best at the
curve's end: the rule would have cost the search whatever the policy found
after that time.

usage: bench/stall_rule_replay.py [--gain 0.005] [--patience 60] [--first 0] CSV...
"""
import argparse
import csv
import sys


def first_gain(rows, gain):
    """Search time of the first best that gains `gain` on the first row's, or None."""
    return next((t for t, best in rows if best < rows[0][1] * (1 - gain)), None)


def replay(path, gain, patience, first=0):
    """(first gain's time or None, stop time or None, best at stop in s, best at the end in s)."""
    with open(path, newline="") as f:
        rows = [(float(r["elapsed_s"]), float(r["best_step_s"])) for r in csv.DictReader(f)]
    if not rows:
        raise ValueError("no updates")
    before_gain = min(first, patience) if first > 0 else patience
    ref, ref_t, stop, gained = rows[0][1], 0.0, None, False
    for t, best in rows:
        if t - ref_t >= (patience if gained else before_gain):
            stop = t
            break
        if best < ref * (1 - gain):
            ref, ref_t, gained = best, t, True
    at_stop = min(b for t, b in rows if stop is None or t <= stop)
    return first_gain(rows, gain), stop, at_stop, rows[-1][1]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gain", type=float, default=0.005)
    p.add_argument("--patience", type=float, default=60)
    p.add_argument("--first", type=float, default=0)
    p.add_argument("csv", nargs="+")
    a = p.parse_args()
    first = f", {a.first:g} s before the first" if a.first > 0 else ""
    print(f"stall rule: a gain of {100 * a.gain:g}% within {a.patience:g} s{first}")
    for path in a.csv:
        try:
            gained, stop, at_stop, end = replay(path, a.gain, a.patience, a.first)
        except (OSError, KeyError, ValueError) as e:
            print(f"{path}: cannot read the curve: {e}", file=sys.stderr)
            return 1
        gain = "no gain" if gained is None else f"first gain at {gained:.1f} s"
        when = "never ends it" if stop is None else f"ends it at {stop:.0f} s"
        print(f"{path}: {gain}; {when}; best then {1000 * at_stop:.3f} ms, "
              f"at the end {1000 * end:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
