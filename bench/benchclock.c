/*
 * benchclock.c - a monotonic clock for the Lua side of the benchmark.
 *
 * luamcp's own mcp.core.now() counts milliseconds, too coarse for
 * per-call latencies, so the benchmark loads this module from
 * build/bench/benchclock.so. It holds no state and allocates nothing.
 *
 *   local clock = require "benchclock"
 *   local t = clock.now_ns()     -- integer nanoseconds, CLOCK_MONOTONIC
 */
#include <lauxlib.h>
#include <lua.h>
#include <time.h>

static int
benchclock_now_ns(lua_State *L)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushinteger(L, (lua_Integer) ts.tv_sec * 1000000000 + ts.tv_nsec);
  return 1;
}

int
luaopen_benchclock(lua_State *L)
{
  static const luaL_Reg fns[] = {
    { "now_ns", benchclock_now_ns },
    { NULL, NULL },
  };

  luaL_newlib(L, fns);
  return 1;
}
