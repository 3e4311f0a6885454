#!/usr/bin/env bash
# Two ways of profiling with one planner build, judged on the same measurements:
# for each model of models/tfjs, `planner profile` with flags A and with flags B
# (which goes first alternates from model to model), the etf, metis and scotch
# placements planned on B's profile, then for every op on cpu0 and each of
# those, one `planner simulate --check --steps 15` measurement that both
# profiles' predictions are set against. Prints one row per placement, then per
# profile: median, p90 and largest |error|, the signed median of the
# single-device and of the split placements, the median and p90 |error| of the
# ratio split / single (what ranking a split against one core rests on), and how
# many single-vs-split pairs it orders as the hardware where the hardware ran
# them more than 5% apart (the same pairs for both).
#   bench/profile_flags_ab.sh PLANNER "FLAGS_A" "FLAGS_B" [MODEL...]   (from the repository root)
#   bench/profile_flags_ab.sh build/planner/planner "--warm-steps 0" "--warm-steps 1"
# No -e: a model or placement that fails is named on stderr and left out, and
# the rest still run.
set -uo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 3 "$@"
planner=$1 flags_a=$2 flags_b=$3
shift 3
bench_need "$planner"
mapfile -t models < <(bench_tfjs_models "$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rows="$out/rows"
D=configs/local-2cpu.yaml
k=0
for m in "${models[@]}"; do
  M=models/tfjs/$m.json
  order=(a b)
  [ $((k++ % 2)) = 1 ] && order=(b a)
  ok=1
  for which in "${order[@]}"; do
    flags=$flags_a
    [ "$which" = b ] && flags=$flags_b
    # shellcheck disable=SC2086  # the flags split into words
    "$planner" profile "$M" $D -o "$out/$m.$which.prof" $flags >/dev/null || ok=0
  done
  if [ $ok = 0 ]; then
    echo "profile_flags_ab.sh: $m left out: planner profile failed" >&2
    continue
  fi
  for method in etf metis scotch; do
    "$planner" baseline "$M" $D --method $method --profile "$out/$m.b.prof" \
      -o "$out/$m.$method.yaml" >/dev/null 2>&1 ||
      echo "profile_flags_ab.sh: $m $method left out: planner baseline failed" >&2
  done
  for placement in single etf metis scotch; do
    arg=()
    if [ $placement != single ]; then
      [ -f "$out/$m.$placement.yaml" ] || continue
      arg=(--placement "$out/$m.$placement.yaml")
    fi
    r=$("$planner" simulate "$M" $D "${arg[@]}" --profile "$out/$m.b.prof" --check --steps 15 2>&1)
    measured=$(grep -o "measured step time: [0-9.]*" <<<"$r" | grep -o "[0-9.]*$")
    sim_b=$(grep -o "simulated step time: [0-9.]*" <<<"$r" | grep -o "[0-9.]*$")
    sim_a=$("$planner" simulate "$M" $D "${arg[@]}" --profile "$out/$m.a.prof" 2>&1 |
      grep -o "simulated step time: [0-9.]*" | grep -o "[0-9.]*$")
    [ -n "$measured" ] && [ -n "$sim_a" ] && [ -n "$sim_b" ] ||
      echo "profile_flags_ab.sh: $m $placement left out: no measured or simulated step" >&2
    echo "$m $placement ${measured:-nan} ${sim_a:-nan} ${sim_b:-nan}" | tee -a "$rows"
  done
done
# Columns: model placement measured simulated-with-A simulated-with-B (ms).
FLAGS_A=$flags_a FLAGS_B=$flags_b awk '
  function q(a, n, p,   i, j, t, x) {  # p-quantile of a[1..n], linear interpolation
    if (n == 0) return 0
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    x = 1 + p * (n - 1); i = int(x); return a[i] + (x - i) * (a[i < n ? i + 1 : i] - a[i])
  }
  function abs(x) { return x < 0 ? -x : x }
  $3 != "nan" && $4 != "nan" && $5 != "nan" {
    meas[$1, $2] = $3; seen[$1] = 1
    for (b = 0; b < 2; b++) { s = $(4 + b); sim[b, $1, $2] = s; n[b]++; e[b, n[b]] = abs(s - $3) / $3
      if ($2 == "single") { ns[b]++; single[b, ns[b]] = (s - $3) / $3 }
      else { nx[b]++; spl[b, nx[b]] = (s - $3) / $3 } }
  }
  END {
    if (n[0] == 0) { print "no placement was measured and simulated with both profiles"; exit 1 }
    name[0] = "A (" ENVIRON["FLAGS_A"] ")"; name[1] = "B (" ENVIRON["FLAGS_B"] ")"
    for (b = 0; b < 2; b++) {
      for (i = 1; i <= n[b]; i++) v[i] = e[b, i]
      med = q(v, n[b], 0.5); p90 = q(v, n[b], 0.9); worst = q(v, n[b], 1)
      for (i = 1; i <= ns[b]; i++) v[i] = single[b, i]
      smed = q(v, ns[b], 0.5)
      for (i = 1; i <= nx[b]; i++) v[i] = spl[b, i]
      xmed = q(v, nx[b], 0.5)
      agree = 0; total = 0; nr = 0
      for (m in seen) for (k = 1; k <= 3; k++) {
        p = (k == 1 ? "etf" : k == 2 ? "metis" : "scotch")
        if (!((m, p) in meas) || !((m, "single") in meas)) continue
        nr++; r[nr] = abs(sim[b, m, p] / sim[b, m, "single"] - meas[m, p] / meas[m, "single"])
        if (abs(meas[m, p] - meas[m, "single"]) / meas[m, "single"] < 0.05) continue
        total++
        if ((meas[m, p] < meas[m, "single"]) == (sim[b, m, p] < sim[b, m, "single"])) agree++
      }
      for (i = 1; i <= nr; i++) v[i] = r[i]
      printf "%s: %d placements, median |error| %.1f%%, p90 %.1f%%, largest %.1f%%; signed median single %+.1f%%, splits %+.1f%%; ratio split/single off by %.3f (median), %.3f (p90); single vs a split, where the hardware ran them >5%% apart: %d of %d ordered as the hardware\n", name[b], n[b], 100 * med, 100 * p90, 100 * worst, 100 * smed, 100 * xmed, q(v, nr, 0.5), q(v, nr, 0.9), agree, total
    }
  }' "$rows"
