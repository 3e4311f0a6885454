#!/usr/bin/env bash
# Two trainer binaries against each other and PyTorch DDP, interleaved: per
# round (rotating which goes first), `trainer launch --nproc 2 train MODEL
# --data synthetic --strategy sync` with OLD, then NEW, then bench/ddp_exported.py
# on the same model (as build/bench/trainer_bench --exported runs it). Prints
# each round's images/s, the all-reduce time not overlapped by the backward
# pass and the update's time per step (`trainer train --report`), then the
# medians. For measuring a change to the trainer: build OLD from the commit
# before it.
# Usage: bench/trainer_ab.sh OLD_TRAINER NEW_TRAINER MODEL.onnx NAME BATCH [ROUNDS] [STEPS]
#   e.g. /usr/bin/python3 scripts/pytorch/export_models.py --batch 8 /tmp/pt8 resnet18
#        bench/trainer_ab.sh /tmp/trainer_old build/trainer/trainer /tmp/pt8/resnet18/model.onnx resnet18 8
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 5 "$@"
[ $# -ge 5 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
old="$(realpath "$1")" new="$(realpath "$2")" model="$(realpath "$3")" name="$4" batch="$5"
rounds="${6:-6}" steps="${7:-30}"
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# images/s, exposed ms, update ms of one run of trainer $1
ours() {
  "$1" launch --nproc 2 train "$model" --data synthetic --strategy sync --steps "$steps" \
    --log-every 0 --quiet --report "$tmp/r.json" >"$tmp/out" 2>&1 ||
    { echo "trainer_ab.sh: $1 failed:" >&2; cat "$tmp/out" >&2; exit 1; }
  # Trainers before 2026-11-27 wrote a diverged loss as nan, which JSON lacks.
  python3 -c 'import json,re,sys; r=json.loads(re.sub(r"-?\bnan\b", "null", open(sys.argv[1]).read()))
print("%.2f %.2f %.2f" % (r["images_per_s"], r["exposed_ms"], r["update_ms"]))' "$tmp/r.json"
}
ddp() {
  local env="MASTER_ADDR=127.0.0.1 MASTER_PORT=$1 WORLD_SIZE=2"
  (env $env RANK=1 /usr/bin/python3 bench/ddp_exported.py "$name" --steps "$steps" --batch "$batch" >/dev/null &
   env $env RANK=0 /usr/bin/python3 bench/ddp_exported.py "$name" --steps "$steps" --batch "$batch"; wait) |
    sed -n 's/images_per_s=\([0-9.]*\).*/\1/p'
}
echo "round  old: img/s exposed_ms update_ms   new: img/s exposed_ms update_ms   DDP img/s"
for r in $(seq "$rounds"); do
  case $((r % 3)) in
    0) o=$(ours "$old"); n=$(ours "$new"); d=$(ddp $((29900 + r))) ;;
    1) n=$(ours "$new"); d=$(ddp $((29900 + r))); o=$(ours "$old") ;;
    2) d=$(ddp $((29900 + r))); o=$(ours "$old"); n=$(ours "$new") ;;
  esac
  echo "$r      $o      $n      $d" | tee -a "$tmp/rounds"
done
python3 - "$tmp/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
col = lambda i: [r[i] for r in rows]
for label, i in (("old", 1), ("new", 4)):
    print(f"{label}: median img/s {statistics.median(col(i - 1 + 0)):.2f}, exposed "
          f"{statistics.median(col(i)):.2f} ms, update {statistics.median(col(i + 1)):.2f} ms "
          f"(range {min(col(i + 1)):.2f}-{max(col(i + 1)):.2f}); ratio to DDP median "
          f"{statistics.median([r[i - 1] / r[6] for r in rows]):.3f}")
PY
