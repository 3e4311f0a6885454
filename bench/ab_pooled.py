#!/usr/bin/env python3
"""Pools runs of bench/profile_flags_ab.sh: which of the two profiles orders each
single-vs-split pair as the hardware, pair by pair.

    bash bench/profile_flags_ab.sh PLANNER "FLAGS_A" "FLAGS_B" > run1.log   (and more runs)
    python3 bench/ab_pooled.py run1.log run2.log ...

Reads each log's rows ("model placement measured sim_A sim_B", ms) and, for each
split (etf, metis, scotch) whose measured step is more than 5% from its model's
single-device step (the script's own criterion), whether A and B put the split
on the hardware's side of one core. Prints, per run and pooled: pairs ordered
right by both, by A only, by B only, by neither, and the two-sided exact sign
test of A only against B only (the pairs where they differ); the pairs where
they differ, by whether the hardware ran the split faster; and the paired
|error| of the split/single ratio: the median of B's less A's over every pair,
and in how many B's is the smaller.
"""
import math
import sys


def rows(path):
    out = {}
    with open(path) as f:
        for line in f:
            x = line.split()
            if len(x) != 5 or x[1] not in ("single", "etf", "metis", "scotch"):
                continue
            try:
                v = tuple(float(s) for s in x[2:])
            except ValueError:
                continue
            if all(math.isfinite(s) and s > 0 for s in v):
                out[(x[0], x[1])] = v
    return out


def sign_test(a, b):
    n, k = a + b, min(a, b)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, j) for j in range(k + 1)) / 2**n)


def tally(runs):
    t = {"both": 0, "A": 0, "B": 0, "neither": 0, "faster": [0, 0], "slower": [0, 0]}
    diffs = []
    for r in runs:
        for (m, p), (meas, a, b) in sorted(r.items()):
            if p == "single" or (m, "single") not in r:
                continue
            s = r[(m, "single")]
            hw, ra, rb = meas / s[0], a / s[1], b / s[2]
            diffs.append(abs(rb - hw) - abs(ra - hw))
            if abs(hw - 1) < 0.05:
                continue
            ca, cb = (ra < 1) == (hw < 1), (rb < 1) == (hw < 1)
            key = "both" if ca and cb else "A" if ca else "B" if cb else "neither"
            t[key] += 1
            if ca != cb:
                t["faster" if hw < 1 else "slower"][0 if ca else 1] += 1
    diffs.sort()
    return t, diffs


def report(label, runs):
    t, d = tally(runs)
    med = d[len(d) // 2] if len(d) % 2 else (d[len(d) // 2 - 1] + d[len(d) // 2]) / 2 if d else 0
    print(f"{label}: pairs the hardware ran >5% apart: {t['both'] + t['A'] + t['B'] + t['neither']}; "
          f"ordered as the hardware by both {t['both']}, A only {t['A']}, B only {t['B']}, "
          f"neither {t['neither']} (sign test p = {sign_test(t['A'], t['B']):.3f}); "
          f"where they differ, splits the hardware ran faster: A right {t['faster'][0]}, "
          f"B right {t['faster'][1]}; slower: A right {t['slower'][0]}, B right {t['slower'][1]}; "
          f"ratio |error| B less A: median {med:+.4f} over {len(d)} pairs, "
          f"B smaller in {sum(x < 0 for x in d)}")


def main(paths):
    if not paths:
        print("usage: python3 bench/ab_pooled.py LOG [LOG...] (outputs of bench/profile_flags_ab.sh)",
              file=sys.stderr)
        return 2
    runs = []
    for p in paths:
        try:
            runs.append(rows(p))
        except OSError as e:
            print(f"ab_pooled.py: {p}: {e.strerror}", file=sys.stderr)
            return 1
        if not runs[-1]:
            print(f"ab_pooled.py: {p}: no rows of bench/profile_flags_ab.sh", file=sys.stderr)
            return 1
        report(p, [runs[-1]])
    if len(runs) > 1:
        report(f"pooled over {len(runs)} runs", runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
