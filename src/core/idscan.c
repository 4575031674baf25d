/*
 * idscan.c - constant-memory scan for the top-level "id" of a message.
 */
#include "idscan.h"

#include <string.h>

enum {
  S_OUTSIDE,     /* not at depth 1, or before the top-level object */
  S_KEY_EXPECT,  /* at depth 1, a key string comes next */
  S_KEY,         /* inside a top-level key string */
  S_COLON,       /* after a top-level key, before its ':' */
  S_VALUE        /* inside a top-level value */
};

void
mcp_idscan_init(mcp_idscan_t *s)
{
  memset(s, 0, sizeof *s);
}

static int
capturing(const mcp_idscan_t *s)
{
  return s->key_is_id && !s->done && s->depth == 1 && s->state == S_VALUE;
}

static void
capture(mcp_idscan_t *s, char c)
{
  if (s->id_len + 1 < sizeof s->id) {
    s->id[s->id_len++] = c;
    s->id[s->id_len] = '\0';
  } else {
    s->key_is_id = 0; /* too long to be an id we could have sent */
    s->id_len = 0;
  }
}

static void
feed_in_string(mcp_idscan_t *s, char c)
{
  if (s->state == S_KEY && s->depth == 1) {
    if (s->esc) {
      s->esc = 0;
    } else if (c == '\\') {
      s->esc = 1;
    } else if (c == '"') {
      s->in_str = 0;
      s->state = S_COLON;
      s->key_is_id = s->key_len == 2 && memcmp(s->key, "id", 2) == 0;
      return;
    }
    if (s->key_len < sizeof s->key)
      s->key[s->key_len] = c;
    s->key_len++;
    return;
  }
  if (capturing(s))
    capture(s, c);
  if (s->esc)
    s->esc = 0;
  else if (c == '\\')
    s->esc = 1;
  else if (c == '"')
    s->in_str = 0;
}

static void
feed_byte(mcp_idscan_t *s, char c)
{
  if (s->in_str) {
    feed_in_string(s, c);
    return;
  }
  switch (c) {
  case ' ':
  case '\t':
  case '\r':
  case '\n':
    return;
  case '"':
    s->in_str = 1;
    if (s->depth == 1 && s->state == S_KEY_EXPECT) {
      s->state = S_KEY;
      s->key_len = 0;
    } else if (capturing(s)) {
      capture(s, c);
    }
    return;
  case '{':
  case '[':
    if (capturing(s)) { /* an object or array is no valid id */
      s->key_is_id = 0;
      s->id_len = 0;
    }
    s->depth++;
    if (s->depth == 1 && c == '{')
      s->state = S_KEY_EXPECT;
    return;
  case '}':
  case ']':
    if (capturing(s) && s->id_len > 0)
      s->done = 1;
    if (s->depth > 0)
      s->depth--;
    if (s->depth == 0)
      s->state = S_OUTSIDE;
    return;
  case ':':
    if (s->depth == 1 && s->state == S_COLON) {
      s->state = S_VALUE;
      if (s->key_is_id && !s->done)
        s->id_len = 0;
    }
    return;
  case ',':
    if (s->depth == 1) {
      if (capturing(s) && s->id_len > 0)
        s->done = 1;
      s->key_is_id = 0;
      s->state = S_KEY_EXPECT;
    }
    return;
  default:
    if (capturing(s))
      capture(s, c);
    return;
  }
}

void
mcp_idscan_feed(mcp_idscan_t *s, const char *data, size_t len)
{
  size_t i;

  for (i = 0; i < len && !s->done; i++)
    feed_byte(s, data[i]);
}

const char *
mcp_idscan_id(const mcp_idscan_t *s, size_t *len)
{
  if (!s->done || s->id_len == 0)
    return NULL;
  if (len != NULL)
    *len = s->id_len;
  return s->id;
}
