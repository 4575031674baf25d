/*
 * test_lua_alloc.c - tests for the luamcp program's Lua allocator
 * (src/cli/lua_alloc.c): blocks keep their bytes through every kind of
 * resize (within a size class, across classes, to and from malloc's
 * sizes), a shrink that cannot move keeps its block, and a whole Lua state
 * runs on it through heavy churn and full collections.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_alloc.h"
#include "test.h"

#define SLOTS 512
#define STEPS 200000

static uint32_t rng = 12345;

static uint32_t
next_random(void)
{
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

static void
fill(unsigned char *p, size_t n, unsigned seed)
{
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = (unsigned char) (seed + i * 7);
}

static int
holds(const unsigned char *p, size_t n, unsigned seed)
{
  size_t i;

  for (i = 0; i < n; i++) {
    if (p[i] != (unsigned char) (seed + i * 7))
      return 0;
  }
  return 1;
}

static void
test_blocks_keep_their_bytes(void)
{
  lua_alloc_t *a = lua_alloc_new();
  unsigned char *block[SLOTS] = { 0 };
  size_t size[SLOTS] = { 0 };
  unsigned seed[SLOTS] = { 0 };
  int step, i;

  ASSERT(a != NULL);
  for (step = 0; step < STEPS; step++) {
    int s = (int) (next_random() % SLOTS);
    /* Mostly small sizes, as Lua's, some past the pool's largest class. */
    size_t n = next_random() % 8 == 0 ? 200 + next_random() % 2000
                                      : 1 + next_random() % 300;

    if (block[s] == NULL) {
      block[s] = lua_alloc(a, NULL, 5 /* LUA_TTABLE: a kind */, n);
      ASSERT(block[s] != NULL);
      seed[s] = next_random();
      fill(block[s], n, seed[s]);
      size[s] = n;
    } else if (next_random() % 3 == 0) {
      ASSERT(holds(block[s], size[s], seed[s]));
      ASSERT(lua_alloc(a, block[s], size[s], 0) == NULL);
      block[s] = NULL;
    } else {
      unsigned char *q = lua_alloc(a, block[s], size[s], n);
      size_t kept = size[s] < n ? size[s] : n;

      ASSERT(q != NULL);
      ASSERT(holds(q, kept, seed[s]));
      block[s] = q;
      fill(q, n, seed[s]);
      size[s] = n;
    }
  }
  for (i = 0; i < SLOTS; i++) {
    if (block[i] != NULL) {
      ASSERT(holds(block[i], size[i], seed[i]));
      lua_alloc(a, block[i], size[i], 0);
    }
  }
  lua_alloc_free(a);
}

static void
test_resizes_in_and_out_of_a_class(void)
{
  lua_alloc_t *a = lua_alloc_new();
  unsigned char *p, *q, *r;

  p = lua_alloc(a, NULL, 0, 17);
  fill(p, 17, 3);
  /* 17 and 32 share the 32-byte class: the block stays where it is. */
  q = lua_alloc(a, p, 17, 32);
  ASSERT(q == p);
  ASSERT(holds(q, 17, 3));
  /* 33 needs the next class: a new block, the bytes carried over. */
  r = lua_alloc(a, q, 32, 33);
  ASSERT(r != q);
  ASSERT(holds(r, 17, 3));
  /* The freed 32-byte block is the next one of its class. */
  ASSERT(lua_alloc(a, NULL, 0, 20) == q);
  lua_alloc(a, q, 20, 0);
  /* To malloc's sizes and back. */
  q = lua_alloc(a, r, 33, 5000);
  ASSERT(holds(q, 17, 3));
  r = lua_alloc(a, q, 5000, 10);
  ASSERT(holds(r, 10, 3));
  lua_alloc(a, r, 10, 0);
  lua_alloc_free(a);
}

/* Churns tables, strings and closures, collecting as it goes, and returns
 * a checksum of what it kept. */
static const char churn[] =
  "local keep, sum = {}, 0\n"
  "for i = 1, 20000 do\n"
  "  local t = { i, tostring(i), { x = i, y = string.rep('y', i % 70) } }\n"
  "  t.f = function() return t[1] end\n"
  "  if i % 7 == 0 then keep[#keep + 1] = t end\n"
  "  if i % 5000 == 0 then collectgarbage() end\n"
  "end\n"
  "for _, t in ipairs(keep) do sum = sum + t.f() + #t[3].y + #t[2] end\n"
  "local parts = {}\n"
  "for i = 1, 3000 do parts[i] = ('%05d'):format(i) end\n"
  "return sum + #table.concat(parts, ',')\n";

static void
test_a_lua_state_runs_on_it(void)
{
  lua_alloc_t *a = lua_alloc_new();
  lua_State *L = lua_newstate(lua_alloc, a);
  long long expected = 0;
  int i;

  ASSERT(L != NULL);
  luaL_openlibs(L);
  ASSERT_EQ(luaL_loadstring(L, churn), LUA_OK);
  ASSERT_EQ(lua_pcall(L, 0, 1, 0), LUA_OK);
  /* The same sum, computed here. */
  for (i = 7; i <= 20000; i += 7) {
    char num[16];

    expected += i + i % 70 + snprintf(num, sizeof num, "%d", i);
  }
  expected += 3000 * 5 + 2999;
  ASSERT_EQ(lua_tointeger(L, -1), expected);
  lua_close(L);
  lua_alloc_free(a);
}

int
main(void)
{
  RUN_TEST(test_blocks_keep_their_bytes);
  RUN_TEST(test_resizes_in_and_out_of_a_class);
  RUN_TEST(test_a_lua_state_runs_on_it);
  TEST_DONE();
}
