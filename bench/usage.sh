# shellcheck shell=bash
# Sourced by every bench/*.sh right after `set -euo pipefail`:
#   bench_usage "$@"        -h or --help first: print the script's header
#                           comment (its usage) and exit 0
#   bench_args N "$@"       fewer than N arguments: one line, exit 2
#   bench_need PROGRAM...   a program it runs is missing: one line naming it
#                           and the build that makes it, exit 1
#   bench_duration NAME V   V is not 90, 90s, 15m or 2h: one line, exit 2
#   bench_tfjs_models NAME...
#                           prints the names given, or, with none, every model
#                           of models/tfjs, one per line
#   bench_zoo PLANNER SPEC OUT
#                           writes the zoo model SPEC names, NAME[:--flag=v,...]
#                           ("nmt:--layers=2,--sizes=small"), to OUT

# The comment block after the shebang, without its "# ".
bench_header() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }

bench_usage() {
  case "${1:-}" in -h | --help) bench_header; exit 0 ;; esac
}

bench_args() {
  local n=$1
  shift
  if [ $# -lt "$n" ]; then
    echo "$(basename "$0"): expected at least $n argument(s), got $# (--help shows the usage)" >&2
    exit 2
  fi
}

bench_need() {
  local f how
  for f in "$@"; do
    [ -x "$f" ] && continue
    how="bash scripts/build.sh"
    [[ "$f" == *build-cuda* ]] && how="scripts/cuda/build.sh, on a host with a GPU"
    echo "$(basename "$0"): no $f (build it first: $how)" >&2
    exit 1
  done
}

bench_duration() {
  if [[ ! "$2" =~ ^[0-9]+[smh]?$ ]]; then
    echo "$(basename "$0"): $1 '$2' is not a duration (90, 90s, 15m or 2h)" >&2
    exit 2
  fi
}

bench_zoo() {
  local spec=$2 flags=""
  [[ "$spec" == *:* ]] && flags="$(echo "${spec#*:}" | tr '=' ' ' | tr ',' ' ')"
  # shellcheck disable=SC2086
  "$1" zoo "${spec%%:*}" $flags -o "$3" >/dev/null
}

bench_tfjs_models() {
  local f
  if [ $# -gt 0 ]; then
    printf '%s\n' "$@"
    return
  fi
  for f in models/tfjs/*.json; do basename "$f" .json; done
}
