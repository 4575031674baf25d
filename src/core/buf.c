/*
 * buf.c - bounded growable buffer.
 */
#include "buf.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"

void
mcp_buf_init(mcp_buf_t *b, size_t max)
{
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->max = max;
}

static int
buf_reserve(mcp_buf_t *b, size_t need)
{
  size_t cap;
  char *p;

  if (need + 1 <= b->cap)
    return 0;
  cap = b->cap ? b->cap : 256;
  while (cap < need + 1)
    cap *= 2;
  p = realloc(b->data, cap);
  if (p == NULL)
    return MCP_ENOMEM;
  b->data = p;
  b->cap = cap;
  return 0;
}

int
mcp_buf_append(mcp_buf_t *b, const void *data, size_t len)
{
  int rc;

  if (b->max != 0 && (len > b->max || b->len > b->max - len))
    return MCP_ETOOBIG;
  rc = buf_reserve(b, b->len + len);
  if (rc != 0)
    return rc;
  if (len > 0)
    memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return 0;
}

int
mcp_buf_putc(mcp_buf_t *b, char c)
{
  return mcp_buf_append(b, &c, 1);
}

void
mcp_buf_consume(mcp_buf_t *b, size_t n)
{
  if (n >= b->len) {
    b->len = 0;
  } else {
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
  }
  if (b->data != NULL)
    b->data[b->len] = '\0';
}

void
mcp_buf_reset(mcp_buf_t *b)
{
  mcp_buf_consume(b, b->len);
}

void
mcp_buf_free(mcp_buf_t *b)
{
  free(b->data);
  mcp_buf_init(b, b->max);
}
