/*
 * command.c - a token from a configured command (see command.h).
 */
#include "auth/command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "common.h"
#include "process.h"

struct mcp_auth_command_s {
  mcp_process_t *proc;     /* NULL once closed */
  uv_timer_t deadline;
  mcp_buf_t out;
  char name[64];           /* argv[0], for messages */
  mcp_auth_command_cb cb;
  void *ud;
  int pending;             /* the process and the timer, until closed */
  unsigned cancelled : 1;
  unsigned timed_out : 1;
  unsigned too_big : 1;
};

static void
release(mcp_auth_command_t *c)
{
  if (--c->pending > 0)
    return;
  if (c->out.data != NULL)
    memset(c->out.data, 0, c->out.len);
  mcp_buf_free(&c->out);
  free(c);
}

static void
timer_closed(uv_handle_t *h)
{
  release(h->data);
}

static void
on_stdout(void *ud, const char *data, size_t len)
{
  mcp_auth_command_t *c = ud;

  if (!c->too_big && mcp_buf_append(&c->out, data, len) != 0) {
    c->too_big = 1;
    mcp_process_shutdown(c->proc);
  }
}

static void
on_gone(void *ud)
{
  mcp_auth_command_t *c = ud;

  mcp_process_shutdown(c->proc);
}

static void
on_write_failed(void *ud, const char *msg)
{
  MCP_UNUSED(ud);
  MCP_UNUSED(msg);
}

/* The child is gone for good: its verdict, then the object's end. */
static void
on_closed(void *ud)
{
  mcp_auth_command_t *c = ud;
  int64_t status = -1;
  int signal = 0;
  size_t start = 0, end = c->out.len;
  mcp_error_t err;
  char *text = c->out.data, *token = NULL;

  mcp_error_clear(&err);
  if (!mcp_process_status(c->proc, &status, &signal))
    status = -1;
  c->proc = NULL;
  uv_timer_stop(&c->deadline);
  uv_close((uv_handle_t *) &c->deadline, timer_closed);
  while (start < end && strchr(" \t\r\n", text[start]) != NULL)
    start++;
  while (end > start && strchr(" \t\r\n", text[end - 1]) != NULL)
    end--;
  if (c->timed_out)
    mcp_error_set(&err, MCP_ETIMEDOUT, "the token command %s did not "
                  "finish in time", c->name);
  else if (c->too_big)
    mcp_error_set(&err, MCP_ETOOBIG, "the token command %s printed more "
                  "than a token", c->name);
  else if (status != 0)
    mcp_error_set(&err, MCP_EAUTH, "the token command %s failed (%s %d)",
                  c->name, status < 0 ? "signal" : "exit status",
                  status < 0 ? signal : (int) status);
  else if (start == end)
    mcp_error_set(&err, MCP_EAUTH, "the token command %s printed nothing",
                  c->name);
  if (err.code == 0 && (token = malloc(end - start + 1)) == NULL)
    mcp_error_set(&err, MCP_ENOMEM, NULL);
  if (!c->cancelled) {
    if (err.code != 0) {
      c->cb(c->ud, NULL, &err);
    } else {
      memcpy(token, text + start, end - start);
      token[end - start] = '\0';
      c->cb(c->ud, token, NULL);
    }
  }
  if (token != NULL) {
    memset(token, 0, end - start);
    free(token);
  }
  release(c);
}

static void
on_deadline(uv_timer_t *t)
{
  mcp_auth_command_t *c = t->data;

  c->timed_out = 1;
  if (c->proc != NULL)
    mcp_process_shutdown(c->proc);
}

int
mcp_auth_command_start(uv_loop_t *loop, const char *const *argv,
                       size_t max, uint64_t timeout_ms,
                       mcp_auth_command_cb cb, void *ud,
                       mcp_auth_command_t **out, mcp_error_t *err)
{
  static const mcp_process_cb_t callbacks = {
    on_stdout, NULL, on_gone, on_write_failed, on_closed
  };
  mcp_process_opts_t o;
  mcp_auth_command_t *c;
  int rc;

  if (argv == NULL || argv[0] == NULL)
    return mcp_error_set(err, MCP_EINVAL, "an empty token command");
  c = calloc(1, sizeof *c);
  if (c == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  mcp_buf_init(&c->out, max);
  snprintf(c->name, sizeof c->name, "%s", argv[0]);
  c->cb = cb;
  c->ud = ud;
  memset(&o, 0, sizeof o);
  o.argv = argv;
  o.stderr_ring = 256;
  o.grace_ms = 1000;
  rc = mcp_process_spawn(loop, &o, &callbacks, c, &c->proc, err);
  if (rc != 0) {
    mcp_buf_free(&c->out);
    free(c);
    return rc;
  }
  uv_timer_init(loop, &c->deadline);
  c->deadline.data = c;
  uv_timer_start(&c->deadline, on_deadline, timeout_ms, 0);
  c->pending = 2;
  *out = c;
  return 0;
}

void
mcp_auth_command_cancel(mcp_auth_command_t *c)
{
  if (c == NULL || c->cancelled)
    return;
  c->cancelled = 1;
  if (c->proc != NULL)
    mcp_process_shutdown(c->proc);
}
