/*
 * framing.h - newline-delimited JSON framing for the stdio transport.
 *
 * Feed it bytes as they arrive; it calls on_message once per complete line
 * (without the newline, and without a trailing '\r'). Blank lines are
 * skipped. A line longer than `max` is not kept: its bytes are discarded up
 * to the next newline and on_oversize reports its size and, when the scanner
 * found one, the raw text of its top-level "id". Memory stays under `max`.
 * The framer does no I/O. A callback may call mcp_framing_stop() to make
 * the current feed return at once; it must not free the framer.
 */
#ifndef MCP_FRAMING_H
#define MCP_FRAMING_H

#include <stddef.h>

#include "buf.h"
#include "idscan.h"

typedef struct mcp_framing_cb_s {
  /* line is valid only during the call. */
  void (*on_message)(void *ud, const char *line, size_t len);
  /* id is NULL when no top-level "id" was found in the discarded line. */
  void (*on_oversize)(void *ud, size_t size, const char *id, size_t id_len);
} mcp_framing_cb_t;

typedef struct mcp_framing_s {
  mcp_buf_t line;          /* the partial line, at most max bytes */
  size_t max;              /* the largest message accepted */
  int discarding;          /* inside a line that went over max */
  int stopped;             /* set by mcp_framing_stop */
  size_t discarded;        /* size of the line being discarded so far */
  mcp_idscan_t scan;       /* finds the id of the line being discarded */
  mcp_framing_cb_t cb;
  void *ud;
} mcp_framing_t;

void mcp_framing_init(mcp_framing_t *f, size_t max,
                      const mcp_framing_cb_t *cb, void *ud);
/* Returns 0, or MCP_ENOMEM when a partial line could not be kept. */
int mcp_framing_feed(mcp_framing_t *f, const char *data, size_t len);
void mcp_framing_stop(mcp_framing_t *f);
void mcp_framing_free(mcp_framing_t *f);

#endif
