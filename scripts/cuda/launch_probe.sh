#!/usr/bin/env bash
# Why a GPU's worker launches its ops slower in a step it shares with cpu0
# (issue 37; docs/simulator.md, "On a GPU"): the kept H100 run's Inception-V3
# placements (bench/gpu-runs/h100-2026-11-27), measured in interleaved rounds
# with traces, each way below, on a lent GPU host. Prints, per way and round,
# the step's median and the GPU worker's ops: their summed host spans and the
# median of each op's span over its span in the first all-GPU step; for the
# split steps also apart for ops launched right after the worker's last one
# (gap under 20 us) and after it waited (over 100 us).
#   gpu       every op on gpu0 (the kept single:gpu0 placement)
#   etf       the kept etf placement: cpu0 (cores 0-7, 8 threads) and gpu0
#   etf_far   etf, the process pinned by taskset to the cores that share no
#             physical core with cores 0-7, which cpu0's workers then leave
#             for theirs: the GPU's worker never shares a core with them
#   gpu_far   gpu, pinned as etf_far (taskset's own effect)
#   gpu_busy  gpu while another process multiplies matrices on cores 0-7 with
#             8 threads, as cpu0's ops would (the host's clocks, caches and
#             memory shared, no core)
# Then, with MOBILENET=FILE.pb (the kept run's MobileNet-V2: `planner import`
# of scripts/pytorch/export_models.py's export, which a CUDA build cannot
# read), its scotch and single:cpu0 placements once each, and cpu0's ops in
# scotch's step against the same ops in single:cpu0's.
# The traces and JSONs are packed into OUT/probe.tgz after each part (the
# device tool brings back 8 files); `tar xzf probe.tgz` gives runs/, which
# launch_spans.py reads again. bench/gpu-runs/h100-2026-11-27-probe holds a run.
# Usage: PLANNER_DEBS=.cuda-debs OUT=DIR [MOBILENET=m.pb] scripts/cuda/launch_probe.sh [ROUNDS]
#   LIMIT=S: start no Inception-V3 round after S seconds (default 150)
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-out}"
mkdir -p "$out/runs"
runs="$out/runs"
exec > >(tee "$out/launch_probe.log") 2>&1
export PYTHONUNBUFFERED=1
rounds="${1:-2}"
start=$SECONDS
lscpu | grep -E "^(Model name|Thread|Core|Socket|CPU\(s\)|NUMA node)"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
PLANNER_TARGETS=planner bash scripts/cuda/build.sh >"$out/build.log" 2>&1 ||
  { grep -B2 -A8 "error" "$out/build.log" | head -60; exit 1; }
echo "built in $((SECONDS - start)) s"
P=build-cuda/planner/planner
kept=bench/gpu-runs/h100-2026-11-27
d="$(mktemp -d)"
"$P" zoo inception_v3 --batch 32 -o "$d/model.pb" >/dev/null
cp "$kept/host.yaml" "$d/"
# The cpus whose physical core none of cpus 0-7 is on.
far="$(lscpu -p=CPU,CORE | grep -v '^#' |
  awk -F, '{core[$1] = $2} $1 < 8 {busy[$2] = 1} END {for (c in core) if (!busy[core[c]]) print c}' |
  sort -n | paste -sd, -)"
echo "cores sharing no physical core with 0-7: ${far:-none}"
measure() {  # MODEL WAY ROUND PLACEMENT [PREFIX...]
  local model=$1 way=$2 r=$3 placement=$4
  shift 4
  "$@" "$P" measure "$model" "$d/host.yaml" --placement "$placement" \
    --steps 5 --warmup 1 --json --trace "$runs/$way.$r.trace.json" >"$runs/$way.$r.json" 2>&1 ||
    echo "$way round $r: $(tail -1 "$runs/$way.$r.json")"
}
ways=(gpu gpu_busy etf)
[ -n "$far" ] && ways=(gpu gpu_far gpu_busy etf_far etf)
m="$d/model.pb"
k="$kept/inception_v3"
for r in $(seq "$rounds"); do
  if [ $((SECONDS - start)) -gt "${LIMIT:-150}" ]; then
    echo "no time for round $r"
    break
  fi
  for way in "${ways[@]}"; do
    case $way in
      gpu) measure "$m" gpu "$r" "$k/single_gpu0.placement" ;;
      etf) measure "$m" etf "$r" "$k/etf.placement" ;;
      etf_far) measure "$m" etf_far "$r" "$k/etf.placement" taskset -c "$far" ;;
      gpu_far) measure "$m" gpu_far "$r" "$k/single_gpu0.placement" taskset -c "$far" ;;
      gpu_busy)
        taskset -c 0-7 python3 -c "
import torch
torch.set_num_threads(8)
a = torch.randn(1024, 1024)
while True: a = (a @ a).clamp_(-1, 1)" &
        busy=$!
        sleep 3
        measure "$m" gpu_busy "$r" "$k/single_gpu0.placement"
        kill "$busy"
        wait "$busy" 2>/dev/null
        ;;
    esac
  done
  echo "after round $r ($((SECONDS - start)) s):"
  python3 scripts/cuda/launch_spans.py "$runs" gpu0 gpu "${ways[@]}"
  tar czf "$out/probe.tgz" -C "$out" runs
done
if [ -n "${MOBILENET:-}" ]; then
  k="$kept/mobilenet_v2"
  measure "$MOBILENET" mobilenet_cpu0 1 "$k/single_cpu0.placement"
  measure "$MOBILENET" mobilenet_scotch 1 "$k/scotch.placement"
  python3 scripts/cuda/launch_spans.py "$runs" cpu0 mobilenet_cpu0 mobilenet_scotch
  tar czf "$out/probe.tgz" -C "$out" runs
fi
rm -rf "$runs"
echo "done in $((SECONDS - start)) s"
