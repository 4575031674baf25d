/*
 * transport_stdio.c - newline-delimited JSON over a child's pipes.
 *
 * Framing is framing.c's; supervision is process.c's. This file only joins
 * them and turns "the child is gone" into on_lost with a useful message.
 */
#include "transport_stdio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "framing.h"

typedef struct stdio_transport_s {
  mcp_transport_t base;
  mcp_process_t *proc;
  mcp_framing_t framing;
  mcp_transport_cb_t cb;
  void *ud;
  int lost;                 /* on_lost was called */
  int closing;              /* close was asked */
} stdio_transport_t;

static void
on_line(void *ud, const char *line, size_t len)
{
  stdio_transport_t *t = ud;

  if (!t->lost)
    t->cb.on_message(t->ud, line, len);
}

static void
on_oversize(void *ud, size_t size, const char *id, size_t id_len)
{
  stdio_transport_t *t = ud;

  if (!t->lost)
    t->cb.on_oversize(t->ud, size, id, id_len);
}

static void
on_stdout(void *ud, const char *data, size_t len)
{
  stdio_transport_t *t = ud;

  /* ENOMEM here loses one partial line; the framer resynchronises. */
  mcp_framing_feed(&t->framing, data, len);
}

static void
on_stderr_line(void *ud, const char *line, size_t len)
{
  stdio_transport_t *t = ud;

  if (t->cb.on_log != NULL)
    t->cb.on_log(t->ud, line, len);
}

static void
on_gone(void *ud)
{
  stdio_transport_t *t = ud;
  mcp_error_t err;
  int64_t status;
  int sig;

  mcp_framing_stop(&t->framing);
  if (t->lost)
    return;
  t->lost = 1;
  if (t->closing)
    mcp_error_set(&err, MCP_ECLOSED, "connection closed");
  else if (!mcp_process_status(t->proc, &status, &sig))
    mcp_error_set(&err, MCP_ECLOSED, "server closed its stdout");
  else if (sig != 0)
    mcp_error_set(&err, MCP_ECLOSED, "server was killed by signal %d", sig);
  else
    mcp_error_set(&err, MCP_ECLOSED, "server exited with status %lld",
                  (long long) status);
  if (mcp_process_status(t->proc, &status, &sig))
    err.status = (int) status;
  /* A server that closed stdout but lives on is shut down. */
  mcp_process_shutdown(t->proc);
  t->cb.on_lost(t->ud, &err);
}

/* The server stopped reading its stdin: nothing more can be said to it. */
static void
on_write_failed(void *ud, const char *msg)
{
  stdio_transport_t *t = ud;
  mcp_error_t err;

  if (t->lost)
    return;
  t->lost = 1;
  mcp_error_set(&err, MCP_ECLOSED, "%s", msg);
  mcp_process_shutdown(t->proc);
  t->cb.on_lost(t->ud, &err);
}

static void
on_closed(void *ud)
{
  stdio_transport_t *t = ud;

  mcp_framing_free(&t->framing);
  if (t->cb.on_closed != NULL)
    t->cb.on_closed(t->ud);
  free(t);
}

static int
stdio_send(mcp_transport_t *base, const char *text, size_t len,
           uint64_t request_id, mcp_error_t *err)
{
  stdio_transport_t *t = (stdio_transport_t *) base;
  uv_buf_t bufs[2];

  MCP_UNUSED(request_id);
  if (t->lost || t->closing)
    return mcp_error_set(err, MCP_ECLOSED, "connection closed");
  bufs[0] = uv_buf_init((char *) text, (unsigned) len);
  bufs[1] = uv_buf_init("\n", 1);
  return mcp_process_write(t->proc, bufs, 2, err);
}

static void
stdio_close(mcp_transport_t *base)
{
  stdio_transport_t *t = (stdio_transport_t *) base;

  if (t->closing)
    return;
  t->closing = 1;
  mcp_process_shutdown(t->proc);
}

static size_t
stdio_diagnostics(const mcp_transport_t *base, char *out, size_t cap)
{
  const stdio_transport_t *t = (const stdio_transport_t *) base;

  return mcp_process_stderr_tail(t->proc, out, cap);
}

static const mcp_transport_vt_t stdio_vt = {
  stdio_send,
  stdio_close,
  stdio_diagnostics,
  NULL,
  NULL,
  NULL,
};

int
mcp_transport_stdio_new(uv_loop_t *loop, const mcp_stdio_opts_t *opts,
                        const mcp_transport_cb_t *cb, void *ud,
                        mcp_transport_t **out, mcp_error_t *err)
{
  static const mcp_framing_cb_t framing_cb = { on_line, on_oversize };
  static const mcp_process_cb_t process_cb = {
    on_stdout, on_stderr_line, on_gone, on_write_failed, on_closed
  };
  stdio_transport_t *t;
  int rc;

  t = calloc(1, sizeof *t);
  if (t == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  t->base.vt = &stdio_vt;
  t->cb = *cb;
  t->ud = ud;
  mcp_framing_init(&t->framing, opts->max_message, &framing_cb, t);
  rc = mcp_process_spawn(loop, &opts->process, &process_cb, t, &t->proc, err);
  if (rc != 0) {
    mcp_framing_free(&t->framing);
    free(t);
    return rc;
  }
  *out = &t->base;
  return 0;
}
