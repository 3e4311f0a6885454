"""One device's op spans in measured steps' traces (scripts/cuda/launch_probe.sh).

Usage: launch_spans.py DIR DEVICE REF WAY...
Reads DIR/WAY.ROUND.trace.json[.gz] (`planner measure --trace`: Chrome
traces) and DIR/WAY.ROUND.json (its --json) and prints, per way and round:
- the step's median, the ops on DEVICE's rows (for a GPU: its worker's
  launches) with their summed host spans, and the median over those ops of
  span / the same op's span in REF's first round (where that trace is there);
  apart for the ops that began under 20 us after the device's previous event
  (op or copy) ended and for those that began over 100 us after;
- the ops that began while a copy off DEVICE (made by another device's
  worker) was between its request and its end, against the others: their
  count and median span, how many ended after that copy did, and for those
  the median of (end - the copy's end) / the median span of their op type
  among the others.
Then the ops whose ratio to REF is largest in the last way's last round.
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)["traceEvents"]
    rows = {e["tid"]: e["args"]["name"] for e in trace if e.get("ph") == "M"}
    return [(rows[e["tid"]], e["name"], e.get("cat"), e["ts"], e["dur"], e.get("args", {}))
            for e in trace if e.get("ph") == "X"]


def on_device(events, device):
    """The events on the device's rows, by start."""
    pattern = re.compile(re.escape(device) + r"( #\d+)?")
    return sorted((e for e in events if pattern.fullmatch(e[0])), key=lambda e: e[3])


def median_ms(path):
    m = re.search(r'"median_s":([0-9.eE+-]+)', open(path).read()) if os.path.exists(path) else None
    return 1e3 * float(m.group(1)) if m else float("nan")


def ratio(values):
    return f"{statistics.median(values):.2f}x ({len(values)})" if values else "-"


def ratios(events, ref):
    """Per op with a reference span: (name, ratio, gap since the previous event)."""
    out, prev_end = [], None
    for _, name, cat, ts, dur, _ in events:
        if cat == "op" and ref.get(name, 0) > 0:
            gap = None if prev_end is None else ts - prev_end
            out.append((name, dur / ref[name], gap))
        prev_end = ts + dur if prev_end is None else max(prev_end, ts + dur)
    return out


def copy_off_line(events, device):
    ops = [e for e in on_device(events, device) if e[2] == "op"]
    offs = [e for e in events if e[2] == "transfer" and e[5].get("from") == device]
    if not offs:
        return None

    def holding(t):  # the latest-ending copy off the device in flight at t
        live = [c for c in offs if c[3] <= t < c[3] + c[4]]
        return max(live, key=lambda c: c[3] + c[4]) if live else None

    during = [(o, holding(o[3])) for o in ops]
    free = [o for o, c in during if c is None]
    held = [(o, c) for o, c in during if c is not None]
    by_type = {}
    for o in free:
        by_type.setdefault(o[5].get("op"), []).append(o[4])
    typical = {k: statistics.median(v) for k, v in by_type.items()}
    after = [(o[3] + o[4] - c[3] - c[4]) / typical[o[5].get("op")] for o, c in held
             if o[3] + o[4] > c[3] + c[4] and o[5].get("op") in typical]
    med = lambda v: statistics.median(v) if v else float("nan")
    longest = sorted(during, key=lambda oc: -oc[0][4])[:3]
    return (f"began during a copy off {device}: {len(held)} ops, median {med([o[4] for o, _ in held]):.1f} us, "
            f"{len(after)} ended after it, (end - its end) / their type's median "
            f"{med(after):.2f}; the others: {len(free)}, median {med([o[4] for o in free]):.1f} us; "
            f"{len(offs)} copies off, {sum(c[4] for c in offs) / 1e3:.1f} ms; longest: " +
            ", ".join(f"{o[1]} {o[4]:.0f} us ({'during' if c else 'not during'})"
                      for o, c in longest))


def main():
    out, device, ref_way, ways = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    ref_paths = glob.glob(os.path.join(out, f"{ref_way}.1.trace.json*"))
    ref = {}
    if ref_paths:
        ref = {e[1]: e[4] for e in on_device(load(ref_paths[0]), device) if e[2] == "op"}
        print(f"{device}'s ops against {ref_way}'s round 1:")
    else:
        print(f"{device}'s ops ({ref_way}.1's trace is not there: no ratios)")
    print(f"{'way':16} {'round':>5} {'step ms':>9} {'ops':>5} {'span ms':>9} "
          f"{'per op':>12} {'after <20us':>14} {'after >100us':>14}")
    last, lines = [], []
    for way in ways:
        for path in sorted(glob.glob(os.path.join(out, f"{way}.*.trace.json*"))):
            r = os.path.basename(path).split(".")[1]
            events = load(path)
            mine = on_device(events, device)
            ops = [e for e in mine if e[2] == "op"]
            q = ratios(mine, ref)
            step = median_ms(os.path.join(out, f"{way}.{r}.json"))
            print(f"{way:16} {r:>5} {step:9.2f} {len(ops):5d} "
                  f"{sum(e[4] for e in ops) / 1e3:9.2f} {ratio([x for _, x, _ in q]):>12} "
                  f"{ratio([x for _, x, g in q if g is not None and g < 20]):>14} "
                  f"{ratio([x for _, x, g in q if g is not None and g > 100]):>14}")
            line = copy_off_line(events, device)
            if line:
                lines.append(f"{way} {r}: {line}")
            last = q
    for line in lines:
        print(line)
    for name, x, gap in sorted(last, key=lambda t: -t[1])[:5]:
        print(f"  {x:6.2f}x {name} (after {'-' if gap is None else f'{gap:.0f} us'})")


if __name__ == "__main__":
    main()
