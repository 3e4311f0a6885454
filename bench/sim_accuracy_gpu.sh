#!/usr/bin/env bash
# The simulator's error on a host with a GPU (docs/simulator.md, "On a GPU"):
# for each model, `planner profile` of the devices file's cpu and cuda devices,
# then the baselines' placements (every op on the GPU, every op on the cpu,
# etf, metis, scotch, expert where they place differently) measured in
# interleaved rounds and simulated with that profile. Prints each placement's
# measured median and predicted step, then per model and over all: the median
# |error| and Kendall's tau-b between measured medians and predictions, and
# over the pairs the hardware orders (no round of one as slow as a round of
# the other: for 3 rounds each, p = 0.1 that two placements of one speed do
# that), a tie in the prediction counting against it; again after each round
# (a run cut short still leaves the table of its last round).
# Baselines that place every op alike are measured once, under the first name.
# Needs a build against a CUDA LibTorch (scripts/cuda/build.sh) and python3.
# Usage: bench/sim_accuracy_gpu.sh [DEVICES] [ROUNDS] [BUILD_DIR] [MODELS...]
#   MODELS: zoo specs NAME[:FLAGS] (default: inception_v3:--batch=32 nmt:--layers=2),
#   or GraphDef files FILE.pb (`planner import` of an ONNX export, say)
#   STEPS=N: steps per profile and per measurement (default 5)
#   KEEP=DIR: keep each model's profile, placements, measurements (JSON, and
#     the last round's traces) and simulations in DIR/NAME
#   DIFF_OVER=PCT: after the last round, each placement whose median is off its
#     prediction by more than PCT percent (default 20; 0: none) is measured once
#     more by `planner simulate --diff`, which prints where the measured timeline
#     parts from the simulated one (kept as NAME/PLACEMENT.diff)
#   REUSE=DIR: measure nothing; simulate the placements kept in DIR/NAME with
#     this build (any build: simulating needs no GPU) against the measurements
#     kept there, and print the table
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
devices="$(realpath "${1:-$(dirname "$0")/../configs/h100-1gpu.yaml}")"
rounds="${2:-3}"
build="$(realpath "${3:-$(dirname "$0")/../build-cuda}")"
shift $(( $# < 3 ? $# : 3 ))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=("inception_v3:--batch=32" "nmt:--layers=2")
planner="$build/planner/planner"
bench_need "$planner"
[ -x "$planner" ] || { echo "sim_accuracy_gpu.sh: no $planner (scripts/cuda/build.sh)" >&2; exit 1; }
reuse=""
[ -n "${REUSE:-}" ] && reuse="$(realpath "$REUSE")"
keep=""
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && keep="$(realpath "$KEEP")"; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
steps="${STEPS:-5}"
rows="$tmp/rows.tsv"
: >"$rows"
# The table of every model's placements measured so far, from the rows file.
table() {
python3 - "$rows" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
def tau(pairs):  # Kendall's tau-b: ties in either ranking count as neither
    c = d = tx = ty = n0 = 0
    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            dx, dy = pairs[i][0] - pairs[j][0], pairs[i][1] - pairs[j][1]
            n0 += 1
            tx += dx == 0
            ty += dy == 0
            c += dx * dy > 0
            d += dx * dy < 0
    den = ((n0 - tx) * (n0 - ty)) ** 0.5
    return (c - d) / den if den else float("nan")
def resolved(v):  # pairs whose rounds do not overlap: the hardware orders them
    r = c = 0
    for i in range(len(v)):
        for j in range(i + 1, len(v)):
            (a, sa), (b, sb) = v[i], v[j]
            if max(a) < min(b) or max(b) < min(a):
                r += 1
                c += (sa - sb) * (a[0] - b[0]) > 0
    return (2 * c - r) / r if r else float("nan"), r
by_model, errors, first = {}, [], {}
print(f"{'model':14} {'placement':14} {'measured ms':>12} {'range':>17} {'simulated ms':>13} {'error':>8}"
      f" {'copies alone':>13} {'error':>8}")
for model, p, sim, measured, *alone in rows:
    if not sim or not measured:
        print(f"{model:14} {p:14} (no figure)")
        continue
    m = [1e3 * float(x) for x in measured.split(",")]
    med, s = statistics.median(m), float(sim)
    err = (s - med) / med
    errors.append(abs(err))
    by_model.setdefault(model, []).append((med, s, abs(err), m))
    line = f"{model:14} {p:14} {med:12.3f} {min(m):8.3f}-{max(m):8.3f} {s:13.3f} {100*err:+7.1f}%"
    if alone and alone[0]:  # simulated with the links' first fit (profile-copies.tsv)
        a = float(alone[0])
        first.setdefault(model, []).append((med, a, abs(a - med) / med, m))
        line += f" {a:13.3f} {100*(a-med)/med:+7.1f}%"
    print(line)
def summary(label, v):
    tr, r = resolved([(m, s) for _, s, _, m in v])
    print(f"{label}: median |error| {100*statistics.median([e for _,_,e,_ in v]):.1f}% over "
          f"{len(v)} placements, Kendall's tau {tau([(a,b) for a,b,_,_ in v]):.2f}; "
          f"over the {r} of {len(v)*(len(v)-1)//2} pairs whose rounds do not overlap {tr:.2f}")
for model, v in by_model.items():
    summary(model, v)
    if model in first:
        summary(f"{model}, the links of copies of one tensor alone", first[model])
if errors:
    print(f"all: median |error| {100*statistics.median(errors):.1f}% over {len(errors)} placements")
alone = [e for v in first.values() for _, _, e, _ in v]
if alone:
    print(f"all, the links of copies of one tensor alone: median |error| "
          f"{100*statistics.median(alone):.1f}% over {len(alone)} placements")
PY
}
# The simulated step (ms) of `planner simulate`'s output on stdin.
step_ms() { sed -n 's/.*step time:* \([0-9.]*\) ms.*/\1/p' | head -1; }
# Adds a method's placement to `placements` unless an earlier one places every
# node alike (the files' placement sections are the same).
add_unless_same() {
  local p
  for p in "${placements[@]}"; do
    if cmp -s <(sed -n '/^placement:/,$p' "$dir/${p/:/_}.placement") \
      <(sed -n '/^placement:/,$p' "$dir/${1/:/_}.placement"); then
      echo "[$name] $1: the same placement as $p"
      return
    fi
  done
  placements+=("$1")
}
done_rows="$tmp/done.tsv"
: >"$done_rows"
for spec in "${models[@]}"; do
  if [[ "$spec" == *.pb ]]; then
    name="$(basename "$spec" .pb)"
    dir="$tmp/$name"
    mkdir -p "$dir"
    cp "$spec" "$dir/model.pb"
  else
    name="${spec%%:*}"
    dir="$tmp/$name"
    mkdir -p "$dir"
    bench_zoo "$planner" "$spec" "$dir/model.pb"
  fi
  placements=()
  if [ -n "$reuse" ]; then
    cp "$reuse/$name/"* "$dir/"
    rounds=0
    for method in single:gpu0 single:cpu0 etf metis scotch expert; do
      [ -f "$dir/${method/:/_}.measured" ] && add_unless_same "$method"
    done
  else
    # The links' first fit (copies of one tensor alone) in profile-copies.tsv;
    # profile.tsv is it with the links measured again and refitted to a split
    # step's copies (runtime/profiler.h): the table simulates with both.
    "$planner" profile "$dir/model.pb" "$devices" -o "$dir/profile-copies.tsv" --steps "$steps" \
      --warmup 1 --gpu-links copies | sed "s/^/[$name] /"
    awk -F'\t' '!($1 == "link" && $2 != $3)' "$dir/profile-copies.tsv" >"$dir/profile.tsv"
    "$planner" profile "$dir/model.pb" "$devices" -o "$dir/profile.tsv" --steps "$steps" \
      --warmup 1 | sed "s/^/[$name] /"
    for method in single:gpu0 single:cpu0 etf metis scotch expert; do
      if ! "$planner" baseline "$dir/model.pb" "$devices" --method "$method" \
        --profile "$dir/profile.tsv" -o "$dir/${method/:/_}.placement" >"$dir/${method/:/_}.log" 2>&1; then
        echo "[$name] $method: $(tail -1 "$dir/${method/:/_}.log")"
        continue
      fi
      add_unless_same "$method"
    done
  fi
  for p in "${placements[@]}"; do
    f="$dir/${p/:/_}"
    "$planner" simulate "$dir/model.pb" "$devices" --placement "$f.placement" \
      --profile "$dir/profile.tsv" >"$f.simulated"
    step_ms <"$f.simulated" >"$f.sim"
    : >"$f.sim-copies"
    if [ -f "$dir/profile-copies.tsv" ]; then
      "$planner" simulate "$dir/model.pb" "$devices" --placement "$f.placement" \
        --profile "$dir/profile-copies.tsv" |
        step_ms >"$f.sim-copies"
    fi
  done
  for r in $(seq "$rounds"); do
    for p in "${placements[@]}"; do
      trace=()
      [ -n "$keep" ] && [ "$r" = "$rounds" ] && trace=(--trace "$dir/${p/:/_}.trace.json")
      "$planner" measure "$dir/model.pb" "$devices" --placement "$dir/${p/:/_}.placement" \
        --steps "$steps" --warmup 1 --json "${trace[@]}" | tee -a "$dir/${p/:/_}.json" |
        sed -n 's/.*"median_s":\([0-9.e+-]*\).*/\1/p' >>"$dir/${p/:/_}.measured"
    done
    cp "$done_rows" "$rows"
    for p in "${placements[@]}"; do
      printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$p" "$(cat "$dir/${p/:/_}.sim")" \
        "$(paste -sd, "$dir/${p/:/_}.measured")" "$(cat "$dir/${p/:/_}.sim-copies")" >>"$rows"
    done
    echo "after round $r of $name:"
    table
    if [ -n "$keep" ]; then
      mkdir -p "$keep/$name"
      find "$dir" -maxdepth 1 -type f ! -name model.pb -exec cp {} "$keep/$name/" \;
      echo "$spec" >"$keep/$name/spec"
    fi
  done
  diff_over="${DIFF_OVER:-20}"
  for p in "${placements[@]}"; do
    f="$dir/${p/:/_}"
    [ "$rounds" != 0 ] && [ "$diff_over" != 0 ] && [ -s "$f.sim" ] || continue
    sort -g "$f.measured" | awk -v sim="$(cat "$f.sim")" -v over="$diff_over" \
      '{ m[NR] = $1 } END { med = NR % 2 ? m[(NR + 1) / 2] : (m[NR / 2] + m[NR / 2 + 1]) / 2
         e = (sim / 1e3 - med) / med; exit !(e > over / 100 || -e > over / 100) }' || continue
    echo "[$name] $p: off by more than $diff_over%; where the timelines part:"
    "$planner" simulate "$dir/model.pb" "$devices" --placement "$f.placement" \
      --profile "$dir/profile.tsv" --diff --steps "$steps" >"$f.diff" 2>&1 || true
    head -60 "$f.diff"
    [ -n "$keep" ] && cp "$f.diff" "$keep/$name/"
  done
  if [ "$rounds" = 0 ]; then
    for p in "${placements[@]}"; do
      printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$p" "$(cat "$dir/${p/:/_}.sim")" \
        "$(paste -sd, "$dir/${p/:/_}.measured")" "$(cat "$dir/${p/:/_}.sim-copies")" >>"$rows"
    done
  fi
  cp "$rows" "$done_rows"
done
echo "all models:"
table
