/*
 * sse.c - Server-Sent Events push parser with a hard event limit.
 *
 * Follows the WHATWG "event stream interpretation" algorithm line by line.
 * A complete line found inside one fed chunk is interpreted straight from
 * the caller's bytes; only a line split across chunks is copied, once.
 * An event that goes over the limit is thrown away as its bytes arrive;
 * its data is only run through the id scanner so that the request it
 * answers can still be told. See sse.h for the contract.
 */
#include "sse.h"

#include <assert.h>
#include <string.h>

/* Where a line of a discarded event is: the caller never sees it, but its
 * `data` values go through the id scanner. */
enum {
  DL_NAME,   /* in the field name; dl_name counts bytes matching "data" */
  DL_SPACE,  /* just after the ':' of a data field: one ' ' is skipped */
  DL_VALUE,  /* in the value of a data field */
  DL_SKIP    /* in any other line: ignored */
};

static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};

void
mcp_sse_init(mcp_sse_t *p, size_t max_event, const mcp_sse_cb_t *cb,
             void *ud)
{
  assert(cb != NULL && cb->on_event != NULL);
  memset(p, 0, sizeof *p);
  p->max = max_event ? max_event : MCP_SSE_DEFAULT_MAX_EVENT;
  /* Each buffer holds at most max bytes; the checks in parse() keep the
   * sum of line, data and type within max, so these limits never trip. */
  mcp_buf_init(&p->line, p->max);
  mcp_buf_init(&p->data, p->max);
  mcp_buf_init(&p->type, p->max);
  mcp_buf_init(&p->id, p->max);
  p->cb = *cb;
  p->ud = ud;
}

/* Returns the offset of the first CR or LF in data, or len if none. Lines
 * are mostly LF-terminated and may be long (a tool list is one line):
 * memchr finds the LF, then a CR before it. */
static size_t
line_end(const char *data, size_t len)
{
  const char *lf = memchr(data, '\n', len);
  size_t n = lf != NULL ? (size_t) (lf - data) : len;
  const char *cr = memchr(data, '\r', n);

  return cr != NULL ? (size_t) (cr - data) : n;
}

static int
field_is(const char *name, size_t len, const char *want)
{
  return len == strlen(want) && memcmp(name, want, len) == 0;
}

static int
dispatch(mcp_sse_t *p)
{
  mcp_sse_event_t ev;

  if (p->data.len == 0) {
    mcp_buf_reset(&p->type);
    return 0;
  }
  /* Drop the '\n' that follows the last data line. */
  p->data.len--;
  p->data.data[p->data.len] = '\0';
  if (p->type.len > 0) {
    ev.type = p->type.data;
    ev.type_len = p->type.len;
  } else {
    ev.type = "message";
    ev.type_len = 7;
  }
  ev.data = p->data.data;
  ev.data_len = p->data.len;
  ev.id = mcp_sse_last_id(p);
  ev.has_id = p->id.len > 0;
  p->cb.on_event(p->ud, &ev);
  mcp_buf_reset(&p->data);
  mcp_buf_reset(&p->type);
  return 0;
}

static int
append_data(mcp_sse_t *p, const char *value, size_t len)
{
  size_t old = p->data.len;
  int rc;

  rc = mcp_buf_append(&p->data, value, len);
  if (rc == 0)
    rc = mcp_buf_putc(&p->data, '\n');
  if (rc != 0 && p->data.data != NULL) {
    /* Keep the buffer as it was, so a half line never reaches an event. */
    p->data.len = old;
    p->data.data[old] = '\0';
  }
  return rc;
}

static void
set_retry(mcp_sse_t *p, const char *value, size_t len)
{
  uint64_t ms = 0;
  unsigned d;
  size_t i;

  if (len == 0)
    return;
  for (i = 0; i < len; i++) {
    if (value[i] < '0' || value[i] > '9')
      return;
  }
  for (i = 0; i < len; i++) {
    d = (unsigned) (value[i] - '0');
    if (ms > (UINT64_MAX - d) / 10)
      ms = UINT64_MAX;
    else
      ms = ms * 10 + d;
  }
  p->retry_ms = ms;
  p->has_retry = 1;
  if (p->cb.on_retry != NULL)
    p->cb.on_retry(p->ud, ms);
}

/* Interprets one complete line (without its line ending). */
static int
process_line(mcp_sse_t *p, const char *line, size_t len)
{
  const char *colon, *value;
  size_t name_len, value_len;

  if (len == 0)
    return dispatch(p);
  if (line[0] == ':') {
    if (p->cb.on_comment != NULL)
      p->cb.on_comment(p->ud, line + 1, len - 1);
    return 0;
  }
  colon = memchr(line, ':', len);
  if (colon != NULL) {
    name_len = (size_t) (colon - line);
    value = colon + 1;
    value_len = len - name_len - 1;
    if (value_len > 0 && value[0] == ' ') {
      value++;
      value_len--;
    }
  } else {
    name_len = len;
    value = line + len;
    value_len = 0;
  }
  if (field_is(line, name_len, "data"))
    return append_data(p, value, value_len);
  if (field_is(line, name_len, "event")) {
    mcp_buf_reset(&p->type);
    return mcp_buf_append(&p->type, value, value_len);
  }
  if (field_is(line, name_len, "id")) {
    if (memchr(value, '\0', value_len) != NULL)
      return 0;
    mcp_buf_reset(&p->id);
    return mcp_buf_append(&p->id, value, value_len);
  }
  if (field_is(line, name_len, "retry"))
    set_retry(p, value, value_len);
  /* Any other field is ignored. */
  return 0;
}

/* Runs bytes of a discarded line through the field-name matcher and feeds
 * the values of its data fields to the id scanner. */
static void
discard_bytes(mcp_sse_t *p, const char *data, size_t len)
{
  size_t i;

  if (len > 0)
    p->dl_empty = 0;
  for (i = 0; i < len; i++) {
    char c = data[i];

    switch (p->dl_state) {
    case DL_NAME:
      if (c == ':')
        p->dl_state = p->dl_name == 4 ? DL_SPACE : DL_SKIP;
      else if (p->dl_name >= 0 && p->dl_name < 4 && c == "data"[p->dl_name])
        p->dl_name++;
      else
        p->dl_name = -1;
      break;
    case DL_SPACE:
      p->dl_state = DL_VALUE;
      if (c != ' ') {
        mcp_idscan_feed(&p->scan, data + i, len - i);
        return;
      }
      break;
    case DL_VALUE:
      mcp_idscan_feed(&p->scan, data + i, len - i);
      return;
    default:
      return;
    }
  }
}

static void
discard_line_start(mcp_sse_t *p)
{
  p->dl_state = DL_NAME;
  p->dl_name = 0;
  p->dl_empty = 1;
}

/* The event held data, type and a partial line, and the next len bytes of
 * the current line would take it over max: drop it all and start counting
 * instead. */
static void
start_discarding(mcp_sse_t *p, const char *more, size_t len)
{
  p->discarding = 1;
  p->discarded = p->data.len + p->type.len + p->line.len + len;
  mcp_idscan_init(&p->scan);
  if (p->data.len > 0)
    mcp_idscan_feed(&p->scan, p->data.data, p->data.len);
  discard_line_start(p);
  discard_bytes(p, p->line.data, p->line.len);
  discard_bytes(p, more, len);
  mcp_buf_reset(&p->line);
  mcp_buf_reset(&p->data);
  mcp_buf_reset(&p->type);
}

/* A line of the discarded event ended; a blank one ends the event. */
static void
end_discarded_line(mcp_sse_t *p)
{
  const char *id;
  size_t id_len = 0;

  if (!p->dl_empty) {
    if (p->dl_state != DL_SKIP && (p->dl_state != DL_NAME || p->dl_name == 4))
      mcp_idscan_feed(&p->scan, "\n", 1); /* data lines join with '\n' */
    discard_line_start(p);
    return;
  }
  p->discarding = 0;
  if (p->cb.on_oversize != NULL) {
    id = mcp_idscan_id(&p->scan, &id_len);
    p->cb.on_oversize(p->ud, p->discarded, id, id_len);
  }
}

/* Parses bytes after the BOM check. */
static int
parse(mcp_sse_t *p, const char *data, size_t len)
{
  size_t i;
  int eol, rc;

  while (len > 0 && !p->stopped) {
    if (p->skip_lf) {
      /* The previous line ended with CR; an LF now completes that CRLF. */
      p->skip_lf = 0;
      if (data[0] == '\n') {
        data++;
        len--;
        continue;
      }
    }
    i = line_end(data, len);
    eol = i < len;
    rc = 0;
    if (p->discarding) {
      p->discarded += i;
      discard_bytes(p, data, i);
      if (eol)
        end_discarded_line(p);
    } else if (i > p->max - (p->data.len + p->type.len + p->line.len)) {
      start_discarding(p, data, i);
      if (eol)
        end_discarded_line(p);
    } else if (p->line.len == 0 && eol) {
      rc = process_line(p, data, i);
    } else {
      rc = mcp_buf_append(&p->line, data, i);
      if (rc == 0 && eol) {
        rc = process_line(p, p->line.data, p->line.len);
        mcp_buf_reset(&p->line);
      }
    }
    if (rc != 0)
      return rc;
    if (eol) {
      p->skip_lf = data[i] == '\r';
      i++;
    }
    data += i;
    len -= i;
  }
  return 0;
}

int
mcp_sse_feed(mcp_sse_t *p, const char *data, size_t len)
{
  int rc;

  p->stopped = 0;
  /* The BOM may itself be split across feeds, so match it byte by byte;
   * a partial match that fails is ordinary line bytes after all. */
  while (!p->bom_done && len > 0) {
    if ((unsigned char) data[0] == bom[p->bom_seen]) {
      data++;
      len--;
      p->bom_seen++;
      if (p->bom_seen == 3)
        p->bom_done = 1;
    } else {
      p->bom_done = 1;
      rc = parse(p, (const char *) bom, (size_t) p->bom_seen);
      if (rc != 0)
        return rc;
    }
  }
  return parse(p, data, len);
}

void
mcp_sse_stop(mcp_sse_t *p)
{
  p->stopped = 1;
}

const char *
mcp_sse_last_id(const mcp_sse_t *p)
{
  return p->id.len > 0 ? p->id.data : "";
}

void
mcp_sse_reset(mcp_sse_t *p)
{
  mcp_buf_reset(&p->line);
  mcp_buf_reset(&p->data);
  mcp_buf_reset(&p->type);
  p->bom_seen = 0;
  p->bom_done = 0;
  p->skip_lf = 0;
  p->stopped = 0;
  p->discarding = 0;
  p->discarded = 0;
}

void
mcp_sse_free(mcp_sse_t *p)
{
  mcp_buf_free(&p->line);
  mcp_buf_free(&p->data);
  mcp_buf_free(&p->type);
  mcp_buf_free(&p->id);
}
