#!/usr/bin/env bash
# run.sh - runs the libFuzzer harnesses built in build-fuzz/, one after
# the other, each for a fixed time, and prints one line per harness:
# "fuzz <name>: ok (...)" or "fuzz <name>: FAILED (...)" with the path of
# the reproducer libFuzzer saved.
#
# Usage: test/fuzz/run.sh [--smoke] [--seconds N] [harness...]
#   --smoke      the check run: each harness starts from the committed
#                corpus (read-only) and a scratch directory, which is
#                removed; crashes are kept in build-fuzz/artifacts/.
#   --seconds N  time per harness (default: FUZZ_SECONDS, else 60; 3 with
#                --smoke unless given).
# Without --smoke the corpus a run grows is kept in build-fuzz/corpus/
# <name>, so that runs build on each other; test/fuzz/corpus/ is only read.
# One fuzzer process runs at a time (the machine has two cores and is
# shared). Environment: FUZZ_BUILD_DIR (build-fuzz), FUZZ_ARGS (more
# libFuzzer flags), FUZZ_SKIP (default: the names in test/fuzz/known-
# defects; see README.md).
# Exit status: 0 when every harness ran without a crash.
set -u
cd "$(dirname "$0")/../.."
ALL="sse framing idscan jsonscan json jsonrpc jsondec schema regex challenge"
BUILD="${FUZZ_BUILD_DIR:-build-fuzz}"
smoke=0
seconds=""
names=""
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --seconds) seconds="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) names="$names $1" ;;
  esac
  shift
done
[ -n "$names" ] || names="$ALL"
if [ -z "$seconds" ]; then
  if [ "$smoke" = 1 ]; then seconds=3; else seconds="${FUZZ_SECONDS:-60}"; fi
fi

if [ -z "${FUZZ_SKIP+set}" ]; then
  FUZZ_SKIP=$(sed -e 's/#.*//' test/fuzz/known-defects | tr -s ' \n' '\n' |
    grep . | paste -sd, -)
fi
export FUZZ_SKIP
[ -n "$FUZZ_SKIP" ] && echo "fuzz: passing over known defects: $FUZZ_SKIP"

dict_of() {
  case "$1" in
    sse) echo test/fuzz/sse.dict ;;
    regex) echo test/fuzz/regex.dict ;;
    schema) echo test/fuzz/schema.dict ;;
    challenge) echo test/fuzz/challenge.dict ;;
    *) echo test/fuzz/json.dict ;;
  esac
}

failed=0
for name in $names; do
  bin="$BUILD/fuzz_$name"
  if [ ! -x "$bin" ]; then
    echo "fuzz $name: FAILED (no $bin: run make fuzz-build)"
    failed=$((failed + 1))
    continue
  fi
  art="$BUILD/artifacts/$name"
  mkdir -p "$art"
  if [ "$smoke" = 1 ]; then
    work="$(mktemp -d)"
  else
    work="$BUILD/corpus/$name"
    mkdir -p "$work"
  fi
  log="$BUILD/logs/$name.log"
  mkdir -p "$BUILD/logs"
  # -timeout: a single input running longer is a hang (the harnesses
  # have bounds of their own well below it).
  # shellcheck disable=SC2086
  "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
    -dict="$(dict_of "$name")" -artifact_prefix="$art/" \
    -print_final_stats=1 ${FUZZ_ARGS:-} \
    "$work" "test/fuzz/corpus/$name" >"$log" 2>&1
  rc=$?
  [ "$smoke" = 1 ] && rm -rf "$work"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # A slow-unit-* file is a note, not a failure: the harnesses abort on
  # their own time bounds, and -timeout catches hangs.
  repro=$(sed -n 's/.*Test unit written to \(.*\/\(crash\|leak\|timeout\|oom\)-.*\)$/\1/p' \
    "$log" | tail -1)
  if [ "$rc" -eq 0 ] && [ -z "$repro" ] && [ -n "$runs" ]; then
    echo "fuzz $name: ok (${runs} runs, ${rate} exec/s, ${seconds} s)"
  else
    grep -E 'ERROR: |SUMMARY: |check failed|^(sse|framing|jsonrpc|jsondec|json|schema|regex): ' \
      "$log" | head -8
    echo "fuzz $name: FAILED (exit $rc; reproducer: ${repro:-none}; log: $log)"
    failed=$((failed + 1))
  fi
done
[ "$failed" -eq 0 ]
