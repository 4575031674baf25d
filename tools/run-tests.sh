#!/usr/bin/env bash
# run-tests.sh - runs every test suite of luamcp (C tests with ctest, busted
# specs) and ends with one line "N passed, N failed" summing them all.
# Exit status: 0 when nothing failed.
set -u
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
export MCP_BUILD_DIR="$BUILD_DIR"   # where the specs find mcp/core.so, luamcp

# ASAN=1 (make check-asan): BUILD_DIR is a sanitizer build (MCP_SANITIZE=
# address,undefined). The C tests and the specs run against it, busted's
# lua5.4 with the ASan runtime preloaded; then the JSON specs run under
# valgrind against VALGRIND_BUILD_DIR, where ASan cannot see (lua5.4 and
# its heap are not instrumented). Conformance and benchmark: make check.
ASAN="${ASAN:-0}"
VALGRIND_BUILD_DIR="${VALGRIND_BUILD_DIR:-build}"
busted=(lua5.4 /usr/bin/busted)
if [ "$ASAN" = 1 ]; then
  # A small quarantine: freed memory waits there to catch use after free,
  # and its default 256 MB would hide what the specs that bound memory
  # (a 100 MB answer streamed through) measure.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=4}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  # The runtime core.so was linked with; unpreload.so keeps the preload
  # from reaching the programs the specs start (tools/asan/unpreload.c).
  asan_rt=$(ldd "$BUILD_DIR/mcp/core.so" 2>/dev/null | awk '/libasan/ { print $3 }')
  if [ -z "$asan_rt" ] || [ ! -f "$BUILD_DIR/unpreload.so" ]; then
    echo "run-tests.sh: $BUILD_DIR is not an ASan build (make check-asan)" >&2
    exit 2
  fi
  preload="$asan_rt:$PWD/$BUILD_DIR/unpreload.so"
  busted=(env "LD_PRELOAD=$preload" "${busted[@]}")
  # MCP_LUA: the same lua5.4, for specs that start one loading mcp/core.so.
  export MCP_LUA="env LD_PRELOAD=$preload lua5.4"
fi
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
grep -A30 -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$LOG_DIR/ctest.log"
echo "C tests: $c_ok passed, $c_bad failed"
add "$c_ok" "$c_bad"

# busted specs, in TAP so every case is counted.
echo "== busted specs"
"${busted[@]}" -o TAP "$@" >"$LOG_DIR/busted.log" 2>&1
busted_rc=$?
cat "$LOG_DIR/busted.log"
b_ok=$(grep -cE '^ok ' "$LOG_DIR/busted.log")
b_bad=$(grep -cE '^not ok ' "$LOG_DIR/busted.log")
if [ "$busted_rc" -ne 0 ] && [ "$b_bad" -eq 0 ]; then b_bad=1; fi
echo "busted specs: $b_ok passed, $b_bad failed"
add "$b_ok" "$b_bad"

# ASAN=1: the JSON specs under valgrind's memcheck; one more failure when
# it reports any error, with its log.
if [ "$ASAN" = 1 ]; then
  echo "== JSON specs under valgrind ($VALGRIND_BUILD_DIR)"
  MCP_BUILD_DIR="$VALGRIND_BUILD_DIR" valgrind --error-exitcode=99 \
    --log-file="$LOG_DIR/valgrind.log" lua5.4 /usr/bin/busted -o TAP \
    spec/unit/json_decoder_spec.lua spec/unit/json_spec.lua \
    spec/unit/json_encoder_spec.lua >"$LOG_DIR/vg-busted.log" 2>&1
  vg_rc=$?
  cat "$LOG_DIR/vg-busted.log"
  v_ok=$(grep -cE '^ok ' "$LOG_DIR/vg-busted.log")
  v_bad=$(grep -cE '^not ok ' "$LOG_DIR/vg-busted.log")
  if ! grep -q 'ERROR SUMMARY: 0 errors' "$LOG_DIR/valgrind.log"; then
    cat "$LOG_DIR/valgrind.log"
    echo "valgrind: memcheck reported errors (above)"
    v_bad=$((v_bad + 1))
  elif [ "$vg_rc" -ne 0 ] && [ "$v_bad" -eq 0 ]; then
    v_bad=1
  fi
  echo "valgrind specs: $v_ok passed, $v_bad failed"
  add "$v_ok" "$v_bad"
fi

# The official conformance suite's client scenarios, each version that
# make check installs, inside a private network namespace; the scenarios
# of later issues are expected failures (expected-failures-VERSION.yml).
conformance_version() {
  local v="$1" dir="$PWD/${DEPS_DIR:-.deps}/conformance/$1"
  if [ ! -d "$dir/node_modules/@modelcontextprotocol/conformance" ]; then
    echo "== conformance $v: not installed (make conformance-deps); counted as 1 failure"
    add 0 1
    return
  fi
  echo "== conformance $v"
  CONFORMANCE_DIR="$dir" tools/conformance/in-netns.sh \
    tools/conformance/run-client-suite.sh --timeout 20000 \
    --expected-failures "tools/conformance/expected-failures-$v.yml" -v \
    -- "$PWD/$BUILD_DIR/luamcp" run "$PWD/examples/conformance_client.lua" \
    >"$LOG_DIR/conformance-$v.log" 2>&1
  local rc=$? ok bad
  grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP)' "$LOG_DIR/conformance-$v.log"
  ok=$(grep -cE '^PASS ' "$LOG_DIR/conformance-$v.log")
  bad=$(grep -cE '^(FAIL|XPASS) ' "$LOG_DIR/conformance-$v.log")
  if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
    bad=1
    tail -20 "$LOG_DIR/conformance-$v.log"
  fi
  [ "$bad" -gt 0 ] && grep -A12 -E '^(FAIL|XPASS) ' "$LOG_DIR/conformance-$v.log"
  echo "conformance $v: $ok passed, $bad failed"
  add "$ok" "$bad"
}
if [ "$ASAN" = 1 ]; then
  echo "== conformance scenarios: run by make check, not with ASAN=1"
else
  for v in 0.1.16 0.2.0-alpha.12; do conformance_version "$v"; done
fi

# A short smoke run of the benchmark (no timing assertions), so that it
# cannot rot: one test, passed when every phase completed.
if [ "$ASAN" = 1 ]; then
  echo "== benchmark smoke run: run by make check, not with ASAN=1"
elif [ -f "${DEPS_DIR:-.deps}/bench/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
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

# Fuzzing smoke run (test/fuzz, issue 11): the libFuzzer harnesses built
# with clang in FUZZ_BUILD_DIR (build-fuzz), each run for a few seconds
# from the committed corpus; one test per harness. Without clang every
# harness counts as failed: make check installs it.
FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
FUZZ_NAMES="sse framing idscan jsonscan json jsonrpc jsondec schema regex challenge"
if [ "${ASAN:-0}" = 1 ]; then
  echo "== fuzz smoke run: run by make check, not with ASAN=1"
else
  echo "== fuzz smoke run"
  if ! command -v clang >/dev/null; then
    echo "fuzz: clang is not installed (make check installs it)"
    add 0 "$(echo $FUZZ_NAMES | wc -w)"
  elif ! { cmake -S test/fuzz -B "$FUZZ_BUILD_DIR" \
             -DCMAKE_C_COMPILER=clang >/dev/null &&
           cmake --build "$FUZZ_BUILD_DIR" -j2 >"$LOG_DIR/fuzz-build.log" 2>&1; }; then
    tail -20 "$LOG_DIR/fuzz-build.log"
    echo "fuzz: the harnesses do not build"
    add 0 "$(echo $FUZZ_NAMES | wc -w)"
  else
    FUZZ_BUILD_DIR="$FUZZ_BUILD_DIR" test/fuzz/run.sh --smoke $FUZZ_NAMES \
      >"$LOG_DIR/fuzz.log" 2>&1
    cat "$LOG_DIR/fuzz.log"
    f_ok=$(grep -cE '^fuzz [a-z]+: ok' "$LOG_DIR/fuzz.log")
    f_bad=$(grep -cE '^fuzz [a-z]+: FAILED' "$LOG_DIR/fuzz.log")
    f_missing=$(( $(echo $FUZZ_NAMES | wc -w) - f_ok - f_bad ))
    [ "$f_missing" -gt 0 ] && f_bad=$((f_bad + f_missing))
    echo "fuzz smoke: $f_ok passed, $f_bad failed"
    add "$f_ok" "$f_bad"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
