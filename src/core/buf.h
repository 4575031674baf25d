/*
 * buf.h - a growable byte buffer with a hard size limit.
 *
 * Appending past the limit fails with MCP_ETOOBIG and leaves the buffer as
 * it was, so no peer can make us grow without bound. The buffer owns its
 * memory; mcp_buf_free releases it.
 */
#ifndef MCP_BUF_H
#define MCP_BUF_H

#include <stddef.h>

typedef struct mcp_buf_s {
  char *data;  /* NUL-terminated when len > 0; may be NULL when empty */
  size_t len;  /* bytes in use */
  size_t cap;  /* bytes allocated */
  size_t max;  /* most bytes the buffer may hold; 0 means no limit */
} mcp_buf_t;

void mcp_buf_init(mcp_buf_t *b, size_t max);
int mcp_buf_append(mcp_buf_t *b, const void *data, size_t len);
int mcp_buf_putc(mcp_buf_t *b, char c);
/* Drops the first n bytes (all of them when n >= len). */
void mcp_buf_consume(mcp_buf_t *b, size_t n);
void mcp_buf_reset(mcp_buf_t *b);
void mcp_buf_free(mcp_buf_t *b);

#endif
