# shellcheck shell=bash
# Helpers shared by the bench scripts that search the paper's models in
# simulation (bench/search_paper.sh, bench/gradients_apart.sh,
# bench/apart_colocated.sh, bench/best_known.sh, bench/baselines_paper.sh), each as
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Nothing here runs a search; each function reads logs that `planner search`
# wrote, or numbers on stdin.

# The benchmarks of Mirhoseini et al. (ICLR 2018, Table 1), at the zoo's default
# (paper-scale) sizes, one per line:
#   name | `planner zoo` arguments | GPUs (configs/k40-paper-Ngpu.yaml) | the paper's improvement
# ResNet-152 has no gradient op heavy enough to run apart (refine::HeavyGradientOps).
# shellcheck disable=SC2034  # used by the scripts that source this file
paper_rows=(
  "inception_v3|inception_v3|2|16.3%"
  "resnet|resnet|2|-"
  "rnnlm|rnnlm|2|-"
  "nmt2|nmt --layers 2|2|60.6%"
  "nmt4|nmt --layers 4|4|53.7%"
  "nmt8|nmt --layers 8|8|no worse than expert"
)

# Whether model $1 is among MODELS (names separated by spaces; unset or empty: all).
picked() { [[ -z "${MODELS:-}" || " $MODELS " == *" $1 "* ]]; }

# 90, 90s, 15m, 2h -> seconds.
seconds() {
  local v=$1
  case $v in
    *h) echo $((${v%h} * 3600)) ;; *m) echo $((${v%m} * 60)) ;; *s) echo "${v%s}" ;; *) echo "$v" ;;
  esac
}

# A search log's result in ms ("1234.567"), empty if it has none.
result_ms() { awk '/^  best found/{print $4}' "$1" | tr -d ,; }

# A search log's improvement over the best baseline in percent ("12.3"; 0 if it
# prints none: the best baseline stands).
result_pct() {
  local pct
  pct=$(grep -o '[-0-9.]*% faster than the best' "$1" | head -1 | cut -d' ' -f1 || true)
  echo "${pct:-0%}" | tr -d '%'
}

# "1234.567 ms [1230.000..1240.000]": the median and range of the numbers on
# stdin, each printed with the unit $1 after the median ("-" if there are none).
summary() {
  sort -g | awk -v unit="$1" '{a[NR]=$1}
    END { if (NR == 0) { print "-"; exit }
          med = (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)
          printf "%.3f%s [%.3f..%.3f]", med, unit, a[1], a[NR] }'
}

# Issue 40's measure between two contenders, from lines "a PCT" and "b PCT" on
# stdin (each seed's improvement over the best baseline, in percent): whether
# the medians differ by more than the larger of the two ranges over the seeds.
#   compare NAME LABEL_A LABEL_B
# prints "nmt2: LABEL_A 16.0% [15.5..16.8%], LABEL_B 15.4% [15.4..15.4%]: ahead by
# 0.62 points, within the larger spread (1.30 points)" (ahead: A's median
# improvement is the larger), nothing if either contender has no line.
compare() {
  sort -k2 -g | awk -v m="$1" -v la="$2" -v lb="$3" '
    function median(v, n) { return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    $1 == "a" { a[++na] = $2 }
    $1 == "b" { b[++nb] = $2 }
    END {
      if (na == 0 || nb == 0) exit
      ma = median(a, na); mb = median(b, nb); spread = a[na] - a[1]
      if (b[nb] - b[1] > spread) spread = b[nb] - b[1]
      d = ma - mb
      word = (d > spread) ? "ahead beyond" : ((-d > spread) ? "behind beyond" : "within")
      # Both ranges empty (each contender ended alike on every seed): the rule
      # then counts any difference, however small; say so.
      note = (spread == 0 && d != 0) ? "; neither moved over the seeds, so any difference counts" : ""
      printf "%s: %s %.1f%% [%.1f..%.1f%%], %s %.1f%% [%.1f..%.1f%%]: %s by %.2f points, %s the larger spread (%.2f points%s)\n",
        m, la, ma, a[1], a[na], lb, mb, b[1], b[nb], (d >= 0) ? "ahead" : "behind", (d < 0) ? -d : d,
        word, spread, note
    }'
}
