#!/usr/bin/env bash
# run-tests.sh - runs every test suite of luamcp (C tests with ctest, busted
# specs) and ends with one line "N passed, N failed" summing them all.
# Exit status: 0 when nothing failed.
set -u
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
LOG_DIR="$(mktemp -d)"
trap 'rm -rf "$LOG_DIR"' EXIT
passed=0
failed=0

add() { passed=$((passed + $1)); failed=$((failed + $2)); }

# C tests: one ctest test per binary; each binary prints "ok <case>" per
# passing case, so cases are counted, and a failing binary counts as one
# failure (it stops at its first failed assertion).
echo "== C tests (ctest)"
ctest --test-dir "$BUILD_DIR" -V >"$LOG_DIR/ctest.log" 2>&1
ctest_rc=$?
c_ok=$(grep -cE '^[0-9]+: ok ' "$LOG_DIR/ctest.log")
c_bad=$(grep -cE 'Test +#[0-9]+: .*(\*\*\*|Failed|Not Run|Timeout)' "$LOG_DIR/ctest.log")
if [ "$ctest_rc" -ne 0 ] && [ "$c_bad" -eq 0 ]; then c_bad=1; fi
grep -E '^[0-9]+: (ok |.*(assert|failed))|Test +#' "$LOG_DIR/ctest.log"
echo "C tests: $c_ok passed, $c_bad failed"
add "$c_ok" "$c_bad"

# busted specs, in TAP so every case is counted.
echo "== busted specs"
lua5.4 /usr/bin/busted -o TAP "$@" >"$LOG_DIR/busted.log" 2>&1
busted_rc=$?
cat "$LOG_DIR/busted.log"
b_ok=$(grep -cE '^ok ' "$LOG_DIR/busted.log")
b_bad=$(grep -cE '^not ok ' "$LOG_DIR/busted.log")
if [ "$busted_rc" -ne 0 ] && [ "$b_bad" -eq 0 ]; then b_bad=1; fi
echo "busted specs: $b_ok passed, $b_bad failed"
add "$b_ok" "$b_bad"

# The official conformance suite's client scenarios, when installed (make
# check installs it); authorization scenarios are expected failures.
CONFORMANCE_DIR="${CONFORMANCE_DIR:-$PWD/.deps/conformance/0.1.16}"
if [ -d "$CONFORMANCE_DIR/node_modules/@modelcontextprotocol/conformance" ]; then
  echo "== conformance scenarios"
  CONFORMANCE_DIR="$CONFORMANCE_DIR" tools/conformance/run-client-suite.sh \
    --expected-failures tools/conformance/expected-failures.yml -v \
    -- "$PWD/$BUILD_DIR/luamcp" run "$PWD/examples/conformance_client.lua" \
    >"$LOG_DIR/conformance.log" 2>&1
  conf_rc=$?
  grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP)' "$LOG_DIR/conformance.log"
  k_ok=$(grep -cE '^PASS ' "$LOG_DIR/conformance.log")
  k_bad=$(grep -cE '^(FAIL|XPASS) ' "$LOG_DIR/conformance.log")
  if [ "$conf_rc" -ne 0 ] && [ "$k_bad" -eq 0 ]; then
    k_bad=1
    tail -20 "$LOG_DIR/conformance.log"
  fi
  [ "$k_bad" -gt 0 ] && grep -A12 -E '^(FAIL|XPASS) ' "$LOG_DIR/conformance.log"
  echo "conformance: $k_ok passed, $k_bad failed"
  add "$k_ok" "$k_bad"
else
  echo "== conformance scenarios: not installed (make conformance-deps); counted as 1 failure"
  add 0 1
fi

# A short smoke run of the benchmark (no timing assertions), so that it
# cannot rot: one test, passed when every phase completed.
if [ -f "${DEPS_DIR:-.deps}/bench/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  echo "== benchmark smoke run"
  if BUILD_DIR="$BUILD_DIR" tools/bench/run.sh --smoke >"$LOG_DIR/bench.log" 2>&1 &&
     grep -q "^bench-smoke: ok" "$LOG_DIR/bench.log"; then
    echo "bench-smoke: ok"
    add 1 0
  else
    tail -20 "$LOG_DIR/bench.log"
    echo "bench-smoke: FAILED"
    add 0 1
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
