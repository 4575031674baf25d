/*
 * lua_alloc.c - the Lua state's allocator in the luamcp program.
 *
 * Almost everything Lua allocates is small (table headers, hash nodes,
 * short strings, closures), and a busy client makes and drops several such
 * objects per message. Blocks up to POOL_MAX bytes come from free lists,
 * one per 16-byte size class, carved from 64 KB slabs; larger blocks go
 * to malloc. Lua passes every block's size back (osize), so no header is
 * needed to find a block's class. Freed small blocks stay in their list
 * for the next object of that size; the slabs go back at lua_alloc_free.
 *
 * Only for a state created with it: a block malloc gave cannot join a
 * list, since its real size is unknown.
 */
#include "lua_alloc.h"

#include <stdlib.h>
#include <string.h>

#define POOL_STEP 16
#define POOL_MAX 256
#define POOL_CLASSES (POOL_MAX / POOL_STEP)
#define SLAB_SIZE (64 * 1024)

typedef struct slab_s {
  struct slab_s *next;
} slab_t;

typedef struct free_block_s {
  struct free_block_s *next;
} free_block_t;

struct lua_alloc_s {
  free_block_t *free[POOL_CLASSES];
  slab_t *slabs;               /* every slab, to give back at the end */
  char *next, *end;            /* the unused part of the newest slab */
};

static size_t
class_of(size_t n)
{
  return (n + POOL_STEP - 1) / POOL_STEP - 1;
}

static void *
pool_get(lua_alloc_t *a, size_t n)
{
  size_t c = class_of(n), size = (c + 1) * POOL_STEP;
  free_block_t *b = a->free[c];
  char *p;

  if (b != NULL) {
    a->free[c] = b->next;
    return b;
  }
  if ((size_t) (a->end - a->next) < size) {
    /* The slab's header keeps blocks 16-byte aligned after it. */
    slab_t *s = malloc(SLAB_SIZE);

    if (s == NULL)
      return NULL;
    s->next = a->slabs;
    a->slabs = s;
    a->next = (char *) s + POOL_STEP;
    a->end = (char *) s + SLAB_SIZE;
  }
  p = a->next;
  a->next += size;
  return p;
}

static void
pool_put(lua_alloc_t *a, void *p, size_t n)
{
  free_block_t *b = p;
  size_t c = class_of(n);

  b->next = a->free[c];
  a->free[c] = b;
}

static void *
block_new(lua_alloc_t *a, size_t n)
{
  return n <= POOL_MAX ? pool_get(a, n) : malloc(n);
}

static void
block_free(lua_alloc_t *a, void *p, size_t n)
{
  if (n <= POOL_MAX)
    pool_put(a, p, n);
  else
    free(p);
}

/* lua_Alloc. When ptr is NULL, osize is the kind of object, not a size. */
void *
lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
  lua_alloc_t *a = ud;
  void *q;

  if (nsize == 0) {
    if (ptr != NULL)
      block_free(a, ptr, osize);
    return NULL;
  }
  if (ptr == NULL)
    return block_new(a, nsize);
  if (osize > POOL_MAX && nsize > POOL_MAX)
    return realloc(ptr, nsize);
  if (osize <= POOL_MAX && nsize <= POOL_MAX &&
      class_of(osize) == class_of(nsize))
    return ptr;
  q = block_new(a, nsize);
  if (q == NULL) {
    /* Lua counts on a shrink never failing; the old block is big enough
     * (and, freed later as the smaller size, only wastes its tail). */
    return nsize <= osize ? ptr : NULL;
  }
  memcpy(q, ptr, osize < nsize ? osize : nsize);
  block_free(a, ptr, osize);
  return q;
}

lua_alloc_t *
lua_alloc_new(void)
{
  return calloc(1, sizeof(lua_alloc_t));
}

void
lua_alloc_free(lua_alloc_t *a)
{
  slab_t *s, *next;

  if (a == NULL)
    return;
  for (s = a->slabs; s != NULL; s = next) {
    next = s->next;
    free(s);
  }
  free(a);
}
