/*
 * sse.h - Server-Sent Events push parser (WHATWG "event stream
 * interpretation").
 *
 * Feed it bytes as they arrive; it calls on_event once per dispatched
 * event. It performs no I/O and never calls into Lua. Lines may end with
 * CRLF, LF or CR, also when a CRLF pair is split between two feeds. One
 * UTF-8 byte order mark at the very start of the stream is skipped. Bytes
 * are passed through as they are: the parser does not decode or validate
 * UTF-8 (the JSON layer does that).
 *
 * Limit: an event may hold at most max_event bytes, counting its data
 * buffer, its event type and the line being read. An event that goes over
 * is not kept: its bytes are thrown away up to its dispatching blank line,
 * where on_oversize reports it once, with the JSON-RPC "id" found in its
 * data when there is one. The next event is parsed normally. The same bound
 * limits a line, so memory stays near 4 * max_event at most (line, data,
 * type and last event id buffers). An event cut off by the end of the
 * stream (or by mcp_sse_reset) is neither dispatched nor reported, as the
 * specification requires.
 *
 * Ownership: the parser owns its buffers; mcp_sse_free releases them. The
 * caller owns the mcp_sse_t itself. Everything passed to a callback
 * (event fields, comment text, id) is valid only during that call. A
 * callback may call mcp_sse_stop and mcp_sse_last_id; it must not call
 * mcp_sse_feed, mcp_sse_reset or mcp_sse_free on the same parser.
 */
#ifndef MCP_SSE_H
#define MCP_SSE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "common.h"
#include "idscan.h"

/* Room for a JSON-RPC message of the default size plus its field names,
 * event type and line endings. */
#define MCP_SSE_DEFAULT_MAX_EVENT (MCP_DEFAULT_MAX_MESSAGE + 4096u)

typedef struct mcp_sse_event_s {
  const char *type;   /* event type; "message" when the event set none */
  size_t type_len;    /* the type may hold NUL bytes */
  const char *data;   /* data lines joined by '\n'; NUL-terminated, never
                         NULL (may be "" for `data` with an empty value) */
  size_t data_len;    /* the data may hold NUL bytes */
  const char *id;     /* the stream's last event id; "" if none */
  int has_id;         /* nonzero when id is not empty */
} mcp_sse_event_t;

typedef struct mcp_sse_cb_s {
  /* Required: one call per dispatched event. */
  void (*on_event)(void *ud, const mcp_sse_event_t *ev);
  /* Optional: a `retry` field of ASCII digits only (others are ignored);
   * values past UINT64_MAX saturate. */
  void (*on_retry)(void *ud, uint64_t ms);
  /* Optional: a comment line (one starting with ':'); text is what follows
   * the ':', unstripped. Useful to notice keep-alives. */
  void (*on_comment)(void *ud, const char *text, size_t len);
  /* Optional: an event went over max_event and was discarded. size counts
   * what the event held when it went over plus every line byte after that
   * up to its blank line (line endings excluded); it is > max_event. id is
   * the raw JSON text of the top-level "id" in its data, or NULL. */
  void (*on_oversize)(void *ud, size_t size, const char *id, size_t id_len);
} mcp_sse_cb_t;

typedef struct mcp_sse_s {
  mcp_buf_t line;        /* the partial line, when split across feeds */
  mcp_buf_t data;        /* the data buffer: each value followed by '\n' */
  mcp_buf_t type;        /* the event type buffer */
  mcp_buf_t id;          /* the last event id; survives events and resets */
  size_t max;            /* the largest event accepted (max_event) */
  uint64_t retry_ms;     /* the last valid `retry` value */
  int has_retry;         /* nonzero once a valid `retry` was seen */
  int bom_seen;          /* bytes of a leading BOM matched so far */
  int bom_done;          /* the stream start has been checked for a BOM */
  int skip_lf;           /* the last line ended with CR: skip one LF */
  int stopped;           /* set by mcp_sse_stop */
  int discarding;        /* inside an event that went over max */
  size_t discarded;      /* size of the event being discarded so far */
  int dl_state;          /* where the discarded line is; see sse.c */
  int dl_name;           /* bytes of its field name matching "data" */
  int dl_empty;          /* the discarded line has no bytes yet */
  mcp_idscan_t scan;     /* finds the id in the discarded event's data */
  mcp_sse_cb_t cb;
  void *ud;
} mcp_sse_t;

/* max_event 0 means MCP_SSE_DEFAULT_MAX_EVENT. cb is copied; cb->on_event
 * must not be NULL. */
void mcp_sse_init(mcp_sse_t *p, size_t max_event, const mcp_sse_cb_t *cb,
                  void *ud);
/* Parses len bytes. Returns 0, or MCP_ENOMEM when a buffer could not grow;
 * after that the stream position is lost and the caller should reset the
 * parser with the connection. After mcp_sse_stop from a callback it
 * returns 0 at once and the rest of this chunk is not parsed. */
int mcp_sse_feed(mcp_sse_t *p, const char *data, size_t len);
/* Makes the current mcp_sse_feed return after the running callback. */
void mcp_sse_stop(mcp_sse_t *p);
/* The last event id ("" if none); valid until the next feed or reset. */
const char *mcp_sse_last_id(const mcp_sse_t *p);
/* For a new connection: drops any partial line or event and checks for a
 * BOM again, but keeps the last event id and the retry time. */
void mcp_sse_reset(mcp_sse_t *p);
void mcp_sse_free(mcp_sse_t *p);

#endif
