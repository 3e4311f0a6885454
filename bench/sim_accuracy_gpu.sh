#!/usr/bin/env bash
# The simulator's error on a host with a GPU (docs/simulator.md, "On a GPU"):
# for each model, `planner profile` of the devices file's cpu and cuda devices,
# then the baselines' placements (every op on the GPU, every op on the cpu,
# etf, metis, scotch, expert where they place differently) measured in
# interleaved rounds and simulated with that profile. Prints each placement's
# measured median and predicted step, then per model and over all: the median
# |error| and Kendall's tau between measured medians and predictions, again
# after each round (a run cut short still leaves the table of its last round).
# Needs a build against a CUDA LibTorch (scripts/cuda/build.sh) and python3.
# Usage: bench/sim_accuracy_gpu.sh [DEVICES] [ROUNDS] [BUILD_DIR] [MODELS...]
#   MODELS: zoo specs NAME[:FLAGS] (default: inception_v3:--batch=32 nmt:--layers=2),
#   or GraphDef files FILE.pb (`planner import` of an ONNX export, say)
#   STEPS=N: steps per profile and per measurement (default 5)
set -euo pipefail
devices="$(realpath "${1:-$(dirname "$0")/../configs/h100-1gpu.yaml}")"
rounds="${2:-3}"
build="$(realpath "${3:-$(dirname "$0")/../build-cuda}")"
shift $(( $# < 3 ? $# : 3 ))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=("inception_v3:--batch=32" "nmt:--layers=2")
planner="$build/planner/planner"
[ -x "$planner" ] || { echo "sim_accuracy_gpu.sh: no $planner (scripts/cuda/build.sh)" >&2; exit 1; }
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
def tau(pairs):
    c = d = 0
    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            s = (pairs[i][0] - pairs[j][0]) * (pairs[i][1] - pairs[j][1])
            c += s > 0
            d += s <= 0
    return (c - d) / (c + d) if c + d else float("nan")
by_model, errors = {}, []
print(f"{'model':14} {'placement':14} {'measured ms':>12} {'range':>17} {'simulated ms':>13} {'error':>8}")
for model, p, sim, measured in rows:
    if not sim or not measured:
        print(f"{model:14} {p:14} (no figure)")
        continue
    m = [1e3 * float(x) for x in measured.split(",")]
    med, s = statistics.median(m), float(sim)
    err = (s - med) / med
    errors.append(abs(err))
    by_model.setdefault(model, []).append((med, s, abs(err)))
    print(f"{model:14} {p:14} {med:12.3f} {min(m):8.3f}-{max(m):8.3f} {s:13.3f} {100*err:+7.1f}%")
for model, v in by_model.items():
    print(f"{model}: median |error| {100*statistics.median([e for _,_,e in v]):.1f}% over "
          f"{len(v)} placements, Kendall's tau {tau([(a,b) for a,b,_ in v]):.2f}")
if errors:
    print(f"all: median |error| {100*statistics.median(errors):.1f}% over {len(errors)} placements")
PY
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
    flags=""
    [ "$spec" != "$name" ] && flags="$(echo "${spec#*:}" | tr '=' ' ' | tr ',' ' ')"
    dir="$tmp/$name"
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    "$planner" zoo "$name" $flags -o "$dir/model.pb" >/dev/null
  fi
  "$planner" profile "$dir/model.pb" "$devices" -o "$dir/profile.tsv" --steps "$steps" --warmup 1 |
    sed "s/^/[$name] /"
  placements=()
  for method in single:gpu0 single:cpu0 etf metis scotch expert; do
    if "$planner" baseline "$dir/model.pb" "$devices" --method "$method" --profile "$dir/profile.tsv" \
      -o "$dir/$method.placement" >"$dir/$method.log" 2>&1; then
      placements+=("$method")
    else
      echo "[$name] $method: $(tail -1 "$dir/$method.log")"
    fi
  done
  for p in "${placements[@]}"; do
    "$planner" simulate "$dir/model.pb" "$devices" --placement "$dir/$p.placement" \
      --profile "$dir/profile.tsv" | sed -n 's/.*step time:* \([0-9.]*\) ms.*/\1/p' | head -1 \
      >"$dir/$p.sim"
  done
  for r in $(seq "$rounds"); do
    for p in "${placements[@]}"; do
      "$planner" measure "$dir/model.pb" "$devices" --placement "$dir/$p.placement" \
        --steps "$steps" --warmup 1 --json |
        sed -n 's/.*"median_s":\([0-9.e+-]*\).*/\1/p' >>"$dir/$p.measured"
    done
    cp "$done_rows" "$rows"
    for p in "${placements[@]}"; do
      printf '%s\t%s\t%s\t%s\n' "$name" "$p" "$(cat "$dir/$p.sim")" \
        "$(paste -sd, "$dir/$p.measured")" >>"$rows"
    done
    echo "after round $r of $name:"
    table
  done
  cp "$rows" "$done_rows"
done
echo "all models:"
table
