/*
 * framing.c - newline-delimited framing with a hard line limit.
 *
 * Complete lines found inside one fed chunk are delivered straight from the
 * caller's bytes; only a line split across chunks is copied, once.
 */
#include "framing.h"

#include <string.h>

#include "common.h"

void
mcp_framing_init(mcp_framing_t *f, size_t max, const mcp_framing_cb_t *cb,
                 void *ud)
{
  memset(f, 0, sizeof *f);
  f->max = max ? max : MCP_DEFAULT_MAX_MESSAGE;
  mcp_buf_init(&f->line, f->max + 1);
  f->cb = *cb;
  f->ud = ud;
}

/* The buffer holds max + 1 bytes so that a message of exactly max bytes
 * still fits with its '\r'; a longer line is reported here instead. */
static void
deliver(mcp_framing_t *f, const char *line, size_t len)
{
  const char *id;
  size_t id_len = 0;

  if (len > 0 && line[len - 1] == '\r')
    len--;
  if (len == 0)
    return;
  if (len > f->max) {
    mcp_idscan_init(&f->scan);
    mcp_idscan_feed(&f->scan, line, len);
    id = mcp_idscan_id(&f->scan, &id_len);
    f->cb.on_oversize(f->ud, len, id, id_len);
    return;
  }
  f->cb.on_message(f->ud, line, len);
}

static void
start_discarding(mcp_framing_t *f, const char *more, size_t more_len)
{
  f->discarding = 1;
  mcp_idscan_init(&f->scan);
  mcp_idscan_feed(&f->scan, f->line.data, f->line.len);
  mcp_idscan_feed(&f->scan, more, more_len);
  f->discarded = f->line.len + more_len;
  mcp_buf_reset(&f->line);
}

static void
finish_discarding(mcp_framing_t *f)
{
  const char *id;
  size_t id_len = 0;

  f->discarding = 0;
  id = mcp_idscan_id(&f->scan, &id_len);
  f->cb.on_oversize(f->ud, f->discarded, id, id_len);
}

int
mcp_framing_feed(mcp_framing_t *f, const char *data, size_t len)
{
  const char *nl;
  size_t chunk;
  int rc;

  f->stopped = 0;
  while (len > 0 && !f->stopped) {
    nl = memchr(data, '\n', len);
    chunk = nl ? (size_t) (nl - data) : len;
    if (f->discarding) {
      mcp_idscan_feed(&f->scan, data, chunk);
      f->discarded += chunk;
      if (nl)
        finish_discarding(f);
    } else if (f->line.len + chunk > f->max + 1) {
      start_discarding(f, data, chunk);
      if (nl)
        finish_discarding(f);
    } else if (f->line.len == 0 && nl) {
      deliver(f, data, chunk);
    } else {
      rc = mcp_buf_append(&f->line, data, chunk);
      if (rc != 0)
        return rc;
      if (nl) {
        deliver(f, f->line.data, f->line.len);
        mcp_buf_reset(&f->line);
      }
    }
    if (nl)
      chunk++;
    data += chunk;
    len -= chunk;
  }
  return 0;
}

void
mcp_framing_stop(mcp_framing_t *f)
{
  f->stopped = 1;
}

void
mcp_framing_free(mcp_framing_t *f)
{
  mcp_buf_free(&f->line);
}
