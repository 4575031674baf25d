/*
 * lua_alloc.h - a pooling allocator for the luamcp program's Lua state:
 * small blocks from per-size free lists, large ones from malloc.
 */
#ifndef LUAMCP_LUA_ALLOC_H
#define LUAMCP_LUA_ALLOC_H

#include <stddef.h>

typedef struct lua_alloc_s lua_alloc_t;

lua_alloc_t *lua_alloc_new(void);
/* The lua_Alloc function; ud is the lua_alloc_t. */
void *lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Gives every slab back; after lua_close of the state that used it. */
void lua_alloc_free(lua_alloc_t *a);

#endif
