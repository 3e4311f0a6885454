#!/usr/bin/env bash
# The simulator's error on the workflow a user follows, for two builds of the
# planner side by side: for each model of models/tfjs, `planner profile` with
# each build, then `planner simulate --check --steps 8` for every op on cpu0
# and for the etf, metis and scotch placements (planned once, with NEW's
# profile), OLD and NEW interleaved model by model. Prints one row per
# placement, then each build's median, p90 and largest |error| and how often it
# orders single-device and split placements as the hardware does where the
# hardware ran them more than 5% apart.
#   bench/sim_before_after.sh OLD_PLANNER NEW_PLANNER [MODEL...]   (from the repository root)
set -uo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 2 "$@"
old=$1 new=$2
shift 2
mapfile -t models < <(bench_tfjs_models "$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rows="$out/rows"
for m in "${models[@]}"; do
  M=models/tfjs/$m.json
  "$new" profile "$M" configs/local-2cpu.yaml -o "$out/$m.new.prof" >/dev/null || continue
  "$old" profile "$M" configs/local-2cpu.yaml -o "$out/$m.old.prof" >/dev/null || continue
  for method in etf metis scotch; do
    "$new" baseline "$M" configs/local-2cpu.yaml --method $method --profile "$out/$m.new.prof" \
      -o "$out/$m.$method.yaml" >/dev/null 2>&1
  done
  for placement in single etf metis scotch; do
    arg=()
    [ $placement != single ] && arg=(--placement "$out/$m.$placement.yaml")
    line="$m $placement"
    for build in old new; do
      bin=$old
      [ $build = new ] && bin=$new
      r=$("$bin" simulate "$M" configs/local-2cpu.yaml "${arg[@]}" --profile "$out/$m.$build.prof" \
        --check --steps 8 2>&1)
      sim=$(grep -o "simulated step time: [0-9.]*" <<<"$r" | grep -o "[0-9.]*$")
      measured=$(grep -o "measured step time: [0-9.]*" <<<"$r" | grep -o "[0-9.]*$")
      line="$line $build ${sim:-nan} ${measured:-nan}"
    done
    echo "$line" | tee -a "$rows"
  done
done
# Columns: model placement old sim measured new sim measured.
awk '
  function q(a, n, p,   i, j, t, x) {  # p-quantile of a[1..n], linear interpolation
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    x = 1 + p * (n - 1); i = int(x); return a[i] + (x - i) * (a[i < n ? i + 1 : i] - a[i])
  }
  function abs(x) { return x < 0 ? -x : x }
  { for (b = 0; b < 2; b++) { s = $(4 + 3 * b); m = $(5 + 3 * b); n[b]++; e[b, n[b]] = abs(s - m) / m
      sim[b, $1, $2] = s; meas[b, $1, $2] = m }
    seen[$1] = 1 }
  END {
    name[0] = "old"; name[1] = "new"
    for (b = 0; b < 2; b++) {
      for (i = 1; i <= n[b]; i++) v[i] = e[b, i]
      med = q(v, n[b], 0.5); p90 = q(v, n[b], 0.9); worst = q(v, n[b], 1)
      agree = 0; total = 0
      for (m in seen) for (k = 1; k <= 3; k++) {
        p = (k == 1 ? "etf" : k == 2 ? "metis" : "scotch")
        if (!((b, m, p) in meas)) continue
        if (abs(meas[b, m, p] - meas[b, m, "single"]) / meas[b, m, "single"] < 0.05) continue
        total++
        if ((meas[b, m, p] < meas[b, m, "single"]) == (sim[b, m, p] < sim[b, m, "single"])) agree++
      }
      printf "%s: %d placements, median |error| %.1f%%, p90 %.1f%%, largest %.1f%%; single vs a split, where the hardware ran them >5%% apart: %d of %d ordered as the hardware\n", name[b], n[b], 100 * med, 100 * p90, 100 * worst, agree, total
    }
  }' "$rows"
