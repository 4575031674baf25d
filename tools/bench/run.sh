#!/usr/bin/env bash
# run.sh - the benchmark of luamcp against the TypeScript SDK client.
#
# Builds the C parts of the benchmark (bench/fixture_server.c and
# bench/http_fixture_server.c, with the MCP answers they share in
# bench/fixture_mcp.c; bench/floor.c and bench/http_floor.c, with
# bench/floor_common.c; bench/http_engine_floor.c, on build/libmcpcore.a;
# bench/coldtime.c, bench/peakrss.c and the Lua clock module
# bench/benchclock.c) into
# $BUILD_DIR/bench, then runs tools/bench/driver.mjs, which runs every phase
# and prints the table.
# Expects build/luamcp (make build) and the SDK in .deps/bench (make bench
# installs both).
#
#   tools/bench/run.sh            the sizes of issue 6 (20,000 calls...);
#                                 figures in bench/results/latest.json
#   tools/bench/run.sh --smoke    a few hundred calls, no timing assertion,
#                                 < 60 s; prints "bench-smoke: ok" and exits
#                                 0 when every phase completed
#   extra options go to the driver (e.g. --calls 5000, --rounds 5 (the
#   programs take turns this many times and each figure is the best of
#   them; 3 by default, 1 in the smoke run), or --targets http,http-sse
#   for some of stdio, http, http-sse, host, agent; --host-servers 20 and
#   --host-reps 3 for the host phase, `luamcp list` over many servers;
#   --agent-servers 5, --agent-tools 20 and --agent-runs 300 for the agent
#   loop's own cost per turn, bench/agent_bench.lua).
set -eu
cd "$(dirname "$0")/../.."
BUILD_DIR="${BUILD_DIR:-build}"
DEPS_DIR="${DEPS_DIR:-.deps}"
CC="${CC:-cc}"
CFLAGS="${BENCH_CFLAGS:--O2 -g}"
WARN="-std=c99 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L"

smoke=0
if [ "${1:-}" = "--smoke" ]; then
  smoke=1
  shift
fi

for need in "$BUILD_DIR/luamcp" \
    "$DEPS_DIR/bench/node_modules/@modelcontextprotocol/sdk/package.json"; do
  if [ ! -e "$need" ]; then
    echo "run.sh: missing $need (run 'make bench' or 'make bench-smoke')" >&2
    exit 1
  fi
done

mkdir -p "$BUILD_DIR/bench"
# shellcheck disable=SC2086
$CC $WARN $CFLAGS -o "$BUILD_DIR/bench/fixture_server" bench/fixture_server.c \
  bench/fixture_mcp.c $(pkg-config --cflags --libs libcjson)
# shellcheck disable=SC2086
$CC $WARN $CFLAGS -o "$BUILD_DIR/bench/floor" bench/floor.c bench/floor_common.c \
  $(pkg-config --cflags --libs libcjson)
# shellcheck disable=SC2086
$CC $WARN $CFLAGS -o "$BUILD_DIR/bench/http_fixture_server" \
  bench/http_fixture_server.c bench/fixture_mcp.c \
  $(pkg-config --cflags --libs libuv libcjson)
# shellcheck disable=SC2086
$CC $WARN $CFLAGS -o "$BUILD_DIR/bench/http_floor" bench/http_floor.c bench/floor_common.c \
  $(pkg-config --cflags --libs libcjson)
# shellcheck disable=SC2086
$CC $WARN -D_DEFAULT_SOURCE $CFLAGS -Isrc/core -Ibench \
  -o "$BUILD_DIR/bench/http_engine_floor" bench/http_engine_floor.c \
  bench/floor_common.c "$BUILD_DIR/libmcpcore.a" \
  $(pkg-config --cflags --libs libuv libcjson) -ldl -lm
# shellcheck disable=SC2086
$CC $WARN $CFLAGS -o "$BUILD_DIR/bench/coldtime" bench/coldtime.c
# shellcheck disable=SC2086
$CC $WARN -D_DEFAULT_SOURCE $CFLAGS -o "$BUILD_DIR/bench/peakrss" bench/peakrss.c
# shellcheck disable=SC2086
$CC $WARN $CFLAGS -shared -fPIC -o "$BUILD_DIR/bench/benchclock.so" \
  bench/benchclock.c $(pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)

case "$DEPS_DIR" in
  /*) deps_abs="$DEPS_DIR" ;;
  *) deps_abs="$PWD/$DEPS_DIR" ;;
esac
export BENCH_SDK_DIR="$deps_abs/bench/node_modules/@modelcontextprotocol/sdk"
if [ "$smoke" = 1 ]; then
  node tools/bench/driver.mjs --build-dir "$BUILD_DIR" --label bench-smoke \
    --out bench/results/smoke.json --calls 300 --inflight-calls 300 \
    --connect-reps 3 --tools 200 --list-reps 2 --cold-reps 2 --rounds 1 \
    --host-reps 1 --agent-runs 20 "$@"
  echo "bench-smoke: ok"
else
  node tools/bench/driver.mjs --build-dir "$BUILD_DIR" --label bench "$@"
fi
