/*
 * rpc.c - JSON-RPC endpoint: pending table, timeouts, dispatch.
 *
 * Pending requests live in a chained hash table keyed by their numeric id,
 * and in a list ordered by deadline watched by one timer: a request
 * starts and ends no timer of its own (most share one timeout, so a new
 * request goes at the tail). The timer is re-armed only when it fires or
 * when a request becomes the soonest. The endpoint is freed once the
 * transport is closed and the timer's close has run.
 */
#include "rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "common.h"
#include "json.h"
#include "idscan.h"
#include "jsonrpc.h"
#include "jsonscan.h"

typedef struct pending_s {
  struct pending_s *next;      /* hash chain */
  struct pending_s *dl_prev, *dl_next;  /* the deadline list */
  mcp_rpc_t *rpc;
  uint64_t id;
  uint64_t deadline;           /* loop time at which the request times out */
  mcp_rpc_done_cb cb;
  void *data;
  uint64_t timeout_ms;
  uint64_t hard_deadline;      /* loop time past which progress is ignored */
  mcp_rpc_progress_cb on_progress;
  mcp_rpc_raw_cb on_raw_result;
  int no_cancel;
  unsigned epoch;              /* the owner's epoch when it was sent */
  char *text;                  /* the request as sent (keep_texts), or NULL */
  size_t text_len;
  unsigned held : 1;           /* its session expired: waits to be resent */
  unsigned auth_tries : 2;     /* refused for want of authorization */
} pending_t;

/* A request refused for want of authorization is sent again after each
 * new authorization, this many times at most (the MCP specification's
 * "no more than a few times"): a server that never accepts does not get
 * a loop. */
#define MAX_AUTH_TRIES 3

struct mcp_rpc_s {
  uv_loop_t *loop;
  mcp_transport_t *transport;
  mcp_rpc_handler_t handler;
  void *ud;
  uint64_t next_id;            /* ids start at 1 and only grow */
  pending_t **buckets;
  size_t nbuckets;             /* a power of two */
  size_t npending;
  pending_t *dl_head, *dl_tail; /* pending requests, soonest deadline first */
  uv_timer_t timer;            /* fires at (or before) dl_head's deadline */
  uint64_t armed_for;          /* the deadline the timer is set for; 0: off */
  size_t raw_requests;         /* pending requests that take raw results */
  int max_depth;
  uint64_t timeout_ms;
  mcp_buf_t out;               /* the request being written, reused */
  unsigned epoch;              /* stamped on each request (mcp_rpc_set_epoch) */
  size_t held;                 /* pending requests that are held */
  int keep_texts;
  char *envelope;              /* the era's _meta members for every request
                                * (mcp_rpc_set_envelope), or NULL */
  mcp_trace_cb trace;
  void *trace_ud;
  unsigned open : 1;           /* requests may be sent */
  unsigned timer_inited : 1;   /* at the first request */
  unsigned timer_closing : 1;  /* its close callback is due */
  unsigned transport_closed : 1;
};

/* ---- the pending table ---------------------------------------------------- */

static size_t
bucket_of(const mcp_rpc_t *rpc, uint64_t id)
{
  return (size_t) (id * 0x9E3779B97F4A7C15ull >> 20) & (rpc->nbuckets - 1);
}

static int
table_grow(mcp_rpc_t *rpc)
{
  size_t n = rpc->nbuckets ? rpc->nbuckets * 2 : 64, i;
  pending_t **b = calloc(n, sizeof *b), *p, *next;
  size_t old = rpc->nbuckets;
  pending_t **old_b = rpc->buckets;

  if (b == NULL)
    return MCP_ENOMEM;
  rpc->buckets = b;
  rpc->nbuckets = n;
  for (i = 0; i < old; i++) {
    for (p = old_b[i]; p != NULL; p = next) {
      size_t k = bucket_of(rpc, p->id);

      next = p->next;
      p->next = b[k];
      b[k] = p;
    }
  }
  free(old_b);
  return 0;
}

static pending_t *
table_take(mcp_rpc_t *rpc, uint64_t id)
{
  pending_t **pp, *p;

  if (rpc->nbuckets == 0)
    return NULL;
  for (pp = &rpc->buckets[bucket_of(rpc, id)]; (p = *pp) != NULL;
       pp = &p->next) {
    if (p->id == id) {
      *pp = p->next;
      rpc->npending--;
      return p;
    }
  }
  return NULL;
}

static pending_t *
table_take_any(mcp_rpc_t *rpc)
{
  size_t i;

  for (i = 0; i < rpc->nbuckets; i++) {
    if (rpc->buckets[i] != NULL)
      return table_take(rpc, rpc->buckets[i]->id);
  }
  return NULL;
}

/* ---- freeing ------------------------------------------------------------- */

static void
maybe_free(mcp_rpc_t *rpc)
{
  if (!rpc->transport_closed || rpc->timer_closing)
    return;
  if (rpc->handler.on_closed != NULL)
    rpc->handler.on_closed(rpc->ud);
  mcp_buf_free(&rpc->out);
  free(rpc->envelope);
  free(rpc->buckets);
  free(rpc);
}

static void
on_timer_closed(uv_handle_t *h)
{
  mcp_rpc_t *rpc = h->data;

  rpc->timer_closing = 0;
  maybe_free(rpc);
}

/* ---- deadlines ------------------------------------------------------------ */

static void on_deadline(uv_timer_t *t);

/* Sets the timer for the soonest deadline, unless it fires before that
 * anyway (it then re-arms itself); stops it when nothing is pending, so
 * that it never keeps the loop alive on its own. */
static void
arm(mcp_rpc_t *rpc)
{
  uint64_t now, due;

  if (rpc->dl_head == NULL) {
    if (rpc->armed_for != 0)
      uv_timer_stop(&rpc->timer);
    rpc->armed_for = 0;
    return;
  }
  due = rpc->dl_head->deadline;
  if (rpc->armed_for != 0 && rpc->armed_for <= due)
    return;
  now = uv_now(rpc->loop);
  uv_timer_start(&rpc->timer, on_deadline, due > now ? due - now : 0, 0);
  rpc->armed_for = due;
}

/* Inserts p by deadline, scanning from the tail: new requests with the
 * usual timeout belong there. */
static void
deadline_insert(mcp_rpc_t *rpc, pending_t *p)
{
  pending_t *after = rpc->dl_tail;

  while (after != NULL && after->deadline > p->deadline)
    after = after->dl_prev;
  p->dl_prev = after;
  p->dl_next = after != NULL ? after->dl_next : rpc->dl_head;
  if (p->dl_next != NULL)
    p->dl_next->dl_prev = p;
  else
    rpc->dl_tail = p;
  if (after != NULL)
    after->dl_next = p;
  else
    rpc->dl_head = p;
  if (rpc->dl_head == p)
    arm(rpc);
}

static void
deadline_remove(mcp_rpc_t *rpc, pending_t *p)
{
  if (p->dl_prev != NULL)
    p->dl_prev->dl_next = p->dl_next;
  else
    rpc->dl_head = p->dl_next;
  if (p->dl_next != NULL)
    p->dl_next->dl_prev = p->dl_prev;
  else
    rpc->dl_tail = p->dl_prev;
  p->dl_prev = p->dl_next = NULL;
  if (rpc->dl_head == NULL)
    arm(rpc);   /* stops the timer */
}

/* Completes a request already taken out of the table, exactly once. */
static void
pending_free(pending_t *p)
{
  if (p->held)
    p->rpc->held--;
  free(p->text);
  free(p);
}

static void
complete(pending_t *p, const mcp_error_t *err, const cJSON *value)
{
  mcp_rpc_t *rpc = p->rpc;
  mcp_rpc_done_cb cb = p->cb;
  void *data = p->data;

  if (p->on_raw_result != NULL)
    rpc->raw_requests--;
  deadline_remove(rpc, p);
  pending_free(p);
  cb(data, err, value);
}

/* ---- sending ------------------------------------------------------------- */

#define TRACE_MAX 2000         /* bytes of a message shown in a trace */

/* A message in the trace: its start, and its size when it is cut. */
static void
trace_message(mcp_rpc_t *rpc, const char *prefix, const char *text,
              size_t len)
{
  char line[TRACE_MAX + 64];
  int n;

  if (len <= TRACE_MAX)
    n = snprintf(line, sizeof line, "%s%.*s", prefix, (int) len, text);
  else
    n = snprintf(line, sizeof line, "%s%.*s... (%zu bytes)", prefix,
                 TRACE_MAX, text, len);
  if (n > 0)
    rpc->trace(rpc->trace_ud, line, strlen(line));
}

/* The one way a message goes to the transport. */
static int
transport_send(mcp_rpc_t *rpc, const char *text, size_t len, uint64_t id,
               mcp_error_t *err)
{
  if (rpc->trace != NULL)
    trace_message(rpc, "> ", text, len);
  return rpc->transport->vt->send(rpc->transport, text, len, id, err);
}

/* Sends a notification or response text (taking it), which cJSON made. */
static int
send_text(mcp_rpc_t *rpc, char *text, mcp_error_t *err)
{
  int rc;

  if (text == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  if (rpc->transport == NULL || !rpc->open) {
    cJSON_free(text);
    return mcp_error_set(err, MCP_ECLOSED, "connection closed");
  }
  rc = transport_send(rpc, text, strlen(text), 0, err);
  cJSON_free(text);
  return rc;
}

/* The transport may stop carrying a request we no longer wait for. */
static void
transport_forget(mcp_rpc_t *rpc, uint64_t id)
{
  if (rpc->transport != NULL && rpc->transport->vt->cancel_request != NULL)
    rpc->transport->vt->cancel_request(rpc->transport, id);
}

static void
send_cancelled(mcp_rpc_t *rpc, uint64_t id, const char *reason)
{
  cJSON *params = cJSON_CreateObject();

  if (params == NULL)
    return;
  cJSON_AddNumberToObject(params, "requestId", (double) id);
  if (reason != NULL)
    cJSON_AddStringToObject(params, "reason", reason);
  /* Best effort: a dead transport makes the notice moot. */
  mcp_rpc_notify(rpc, "notifications/cancelled", params, NULL);
  cJSON_Delete(params);
}

/* Whether a caller's _meta member (key, len) is one we write: the
 * progress token, or one of the era's keys (all "io.modelcontextprotocol/"
 * ones, found as "key": in the envelope's text). */
static int
ours(const char *key, size_t len, int token, const char *envelope)
{
  static const char prefix[] = "io.modelcontextprotocol/";
  const char *at;

  if (token && len == 13 && memcmp(key, "progressToken", 13) == 0)
    return 1;
  if (envelope == NULL || len <= sizeof prefix - 1 ||
      memcmp(key, prefix, sizeof prefix - 1) != 0)
    return 0;
  for (at = strstr(envelope, "\"io."); at != NULL;
       at = strstr(at + 1, "\"io.")) {
    if (strncmp(at + 1, key, len) == 0 && at[len + 1] == '"' &&
        at[len + 2] == ':')
      return 1;
  }
  return 0;
}

/* The one writer of _meta: the params another writer put in b from start
 * (none when had_params is 0) get our members first, the request's id as
 * its progress token (token) and the era's envelope (envelope: members as
 * text, or NULL), in place of any the caller gave. Works on the text, so
 * every writer of params (cJSON, the Lua encoder) is served: params are
 * copied out, then written again with _meta rebuilt from its members,
 * ours first. */
static int
add_meta(mcp_buf_t *b, size_t start, int had_params, int token, uint64_t id,
         const char *envelope, int max_depth, mcp_error_t *err)
{
  mcp_json_member_t m[64], mm[32];
  const mcp_json_member_t *meta;
  const char *base = b->data + start;
  size_t n = 0, nm = 0, len = b->len - start, k, at, end, key[32], val[32];
  char head[48], *params;
  int rc = 0;

  if (token)
    snprintf(head, sizeof head, "{\"progressToken\":%llu%s",
             (unsigned long long) id, envelope != NULL ? "," : "");
  else
    snprintf(head, sizeof head, "{");
  if (!had_params) {
    if (mcp_buf_append(b, "{\"_meta\":", 9) != 0 ||
        mcp_buf_append(b, head, strlen(head)) != 0 ||
        (envelope != NULL &&
         mcp_buf_append(b, envelope, strlen(envelope)) != 0) ||
        mcp_buf_append(b, "}}", 2) != 0)
      return mcp_error_set(err, MCP_ENOMEM, NULL);
    return 0;
  }
  if (mcp_json_members(base, len, max_depth, m, 64, &n) != 0 || n >= 64)
    return mcp_error_set(err, MCP_EINVAL, "_meta needs object params "
                         "(of at most 63 members)");
  meta = mcp_json_member(m, n, "_meta");
  if (meta != NULL && (meta->value[0] != '{' ||
                       mcp_json_members(meta->value, meta->value_len,
                                        max_depth, mm, 32, &nm) != 0 ||
                       nm >= 32))
    nm = 0;                    /* not an object (or too big): replaced */
  /* Every offset is taken before b changes (it may move). */
  if (meta != NULL) {
    at = (size_t) (meta->value - base);
    end = at + meta->value_len;
  } else {
    end = len;
    while (end > 0 && base[end - 1] != '}')
      end--;
    at = --end;                /* ours go before the closing brace */
  }
  for (k = 0; k < nm; k++) {
    key[k] = (size_t) (mm[k].key - base);
    val[k] = (size_t) (mm[k].value - base);
  }
  params = malloc(len);
  if (params == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  memcpy(params, base, len);
  b->len = start;
  rc |= mcp_buf_append(b, params, at);
  if (meta == NULL)
    rc |= mcp_buf_append(b, n > 0 ? ",\"_meta\":" : "\"_meta\":",
                         n > 0 ? 9 : 8);
  rc |= mcp_buf_append(b, head, strlen(head));
  if (envelope != NULL)
    rc |= mcp_buf_append(b, envelope, strlen(envelope));
  for (k = 0; k < nm; k++) {
    if (ours(params + key[k], mm[k].key_len, token, envelope))
      continue;
    if (k > 0 || token || envelope != NULL)
      rc |= mcp_buf_putc(b, ',');
    rc |= mcp_buf_putc(b, '"');
    rc |= mcp_buf_append(b, params + key[k], mm[k].key_len);
    rc |= mcp_buf_append(b, "\":", 2);
    rc |= mcp_buf_append(b, params + val[k], mm[k].value_len);
  }
  rc |= mcp_buf_putc(b, '}');
  rc |= mcp_buf_append(b, params + end, len - end);
  free(params);
  return rc != 0 ? mcp_error_set(err, MCP_ENOMEM, NULL) : 0;
}

/* A params writer with our _meta members added after it. */
typedef struct {
  mcp_jsonrpc_params_cb inner;
  void *inner_ud;
  int token;                   /* add the progress token */
  const char *envelope;        /* the era's members, or NULL */
  int max_depth;
} meta_writer_t;

static int
write_with_meta(void *ud, uint64_t id, mcp_buf_t *b, mcp_error_t *err)
{
  meta_writer_t *w = ud;
  size_t start = b->len;
  int rc;

  if (w->inner != NULL) {
    rc = w->inner(w->inner_ud, id, b, err);
    if (rc != 0)
      return rc;
  }
  return add_meta(b, start, w->inner != NULL, w->token, id, w->envelope,
                  w->max_depth, err);
}

/* Most bytes of the request buffer kept between requests. */
#define OUT_KEEP (64u * 1024u)

/* Writes request id into the endpoint's buffer and hands it to the
 * transport (which copies it): no allocation per request. */
static int
send_request(mcp_rpc_t *rpc, pending_t *p, const char *method,
             mcp_jsonrpc_params_cb write_params, void *ud, mcp_error_t *err)
{
  int rc;

  if (rpc->transport == NULL || !rpc->open)
    return mcp_error_set(err, MCP_ECLOSED, "connection closed");
  mcp_buf_reset(&rpc->out);
  rc = mcp_jsonrpc_write_request(&rpc->out, p->id, method, write_params, ud,
                                 err);
  if (rc == 0 && rpc->keep_texts) {
    p->text = malloc(rpc->out.len);
    if (p->text == NULL)
      rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    else
      memcpy(p->text, rpc->out.data, rpc->out.len);
    p->text_len = rpc->out.len;
  }
  if (rc == 0)
    rc = transport_send(rpc, rpc->out.data, rpc->out.len, p->id, err);
  if (rpc->out.cap > OUT_KEEP)
    mcp_buf_free(&rpc->out);
  return rc;
}

static pending_t *
table_find(mcp_rpc_t *rpc, uint64_t id)
{
  pending_t *p;

  if (rpc->nbuckets == 0)
    return NULL;
  for (p = rpc->buckets[bucket_of(rpc, id)]; p != NULL; p = p->next) {
    if (p->id == id)
      return p;
  }
  return NULL;
}

/* Progress for a request we are waiting on restarts its timeout, up to
 * its hard deadline. Returns 0 for a token that is no pending request's:
 * the caller hands that on as a notification, since a finished request
 * that became a task (2025-11-25) keeps its token until the task ends;
 * the client ignores the rest (B15). */
/* params is the tree, to read; given is what the request's owner gets. */
static int
handle_progress(mcp_rpc_t *rpc, const cJSON *params, const cJSON *given)
{
  const cJSON *token = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
  uint64_t id, now, left;
  pending_t *p;

  if (mcp_jsonrpc_id_u64(token, &id) != 0)
    return 0;
  p = table_find(rpc, id);
  if (p == NULL || p->on_progress == NULL)
    return 0;
  now = uv_now(rpc->loop);
  if (now < p->hard_deadline) {
    left = p->hard_deadline - now;
    deadline_remove(rpc, p);
    p->deadline = now + (p->timeout_ms < left ? p->timeout_ms : left);
    deadline_insert(rpc, p);
  }
  p->on_progress(p->data, given);
  return 1;
}

/* Fails every request whose deadline has passed, soonest first. A failure
 * may start or end other requests: the list is read afresh each time. */
static void
on_deadline(uv_timer_t *t)
{
  mcp_rpc_t *rpc = t->data;
  uint64_t now = uv_now(rpc->loop);
  mcp_error_t err;
  pending_t *p;

  rpc->armed_for = 0;
  while ((p = rpc->dl_head) != NULL && p->deadline <= now) {
    p = table_take(rpc, p->id);
    mcp_error_set(&err, MCP_ETIMEDOUT, "request timed out after %llu ms",
                  (unsigned long long) p->timeout_ms);
    if (!p->no_cancel)
      send_cancelled(rpc, p->id, "timeout");
    transport_forget(rpc, p->id);
    complete(p, &err, NULL);
  }
  arm(rpc);
}

int
mcp_rpc_request(mcp_rpc_t *rpc, const char *method, const cJSON *params,
                const mcp_rpc_req_opts_t *opts, mcp_rpc_done_cb cb,
                void *data, uint64_t *id_out, mcp_error_t *err)
{
  return mcp_rpc_request_with(rpc, method,
                              params != NULL ? mcp_jsonrpc_write_cjson : NULL,
                              (void *) params, opts, cb, data, id_out, err);
}

int
mcp_rpc_request_with(mcp_rpc_t *rpc, const char *method,
                     mcp_jsonrpc_params_cb write_params, void *params_ud,
                     const mcp_rpc_req_opts_t *opts, mcp_rpc_done_cb cb,
                     void *data, uint64_t *id_out, mcp_error_t *err)
{
  pending_t *p;
  uint64_t timeout;
  size_t k;
  int rc;

  if (!rpc->open)
    return mcp_error_set(err, MCP_ECLOSED, "connection closed");
  if (rpc->npending >= rpc->nbuckets && table_grow(rpc) != 0)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  p = calloc(1, sizeof *p);
  if (p == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  p->rpc = rpc;
  p->id = rpc->next_id++;
  p->cb = cb;
  p->data = data;
  p->no_cancel = opts != NULL && opts->no_cancel;
  p->on_progress = opts != NULL ? opts->on_progress : NULL;
  p->on_raw_result = opts != NULL ? opts->on_raw_result : NULL;
  p->epoch = rpc->epoch;
  if (p->on_progress != NULL || rpc->envelope != NULL) {
    meta_writer_t w;

    w.inner = write_params;
    w.inner_ud = params_ud;
    w.token = p->on_progress != NULL;
    w.envelope = rpc->envelope;
    w.max_depth = rpc->max_depth;
    rc = send_request(rpc, p, method, write_with_meta, &w, err);
  } else {
    rc = send_request(rpc, p, method, write_params, params_ud, err);
  }
  if (rc != 0) {
    pending_free(p);
    return rc;
  }
  timeout = (opts != NULL && opts->timeout_ms) ? opts->timeout_ms
                                               : rpc->timeout_ms;
  p->timeout_ms = timeout;
  p->hard_deadline = uv_now(rpc->loop) +
                     ((opts != NULL && opts->max_timeout_ms)
                          ? opts->max_timeout_ms
                          : timeout * 10);
  p->deadline = uv_now(rpc->loop) + timeout;
  if (!rpc->timer_inited) {
    uv_timer_init(rpc->loop, &rpc->timer);
    rpc->timer.data = rpc;
    rpc->timer_inited = 1;
  }
  deadline_insert(rpc, p);
  k = bucket_of(rpc, p->id);
  p->next = rpc->buckets[k];
  rpc->buckets[k] = p;
  rpc->npending++;
  if (p->on_raw_result != NULL)
    rpc->raw_requests++;
  if (id_out != NULL)
    *id_out = p->id;
  return 0;
}

int
mcp_rpc_cancel(mcp_rpc_t *rpc, uint64_t id, const char *reason)
{
  pending_t *p = table_take(rpc, id);
  mcp_error_t err;

  if (p == NULL)
    return MCP_EINVAL;
  if (!p->no_cancel)
    send_cancelled(rpc, id, reason);
  transport_forget(rpc, id);
  mcp_error_set(&err, MCP_ECANCELED, "request cancelled%s%s",
                reason ? ": " : "", reason ? reason : "");
  complete(p, &err, NULL);
  return 0;
}

int
mcp_rpc_notify(mcp_rpc_t *rpc, const char *method, const cJSON *params,
               mcp_error_t *err)
{
  return send_text(rpc, mcp_jsonrpc_notification(method, params), err);
}

int
mcp_rpc_respond(mcp_rpc_t *rpc, const cJSON *id, const cJSON *result,
                mcp_error_t *err)
{
  return send_text(rpc, mcp_jsonrpc_result(id, result), err);
}

int
mcp_rpc_respond_error(mcp_rpc_t *rpc, const cJSON *id, int code,
                      const char *message, const cJSON *data,
                      mcp_error_t *err)
{
  return send_text(rpc, mcp_jsonrpc_error(id, code, message, data), err);
}

/* ---- receiving ----------------------------------------------------------- */

static void
bad_message(mcp_rpc_t *rpc, const mcp_error_t *err, const char *text,
            size_t len)
{
  if (rpc->handler.on_bad_message != NULL)
    rpc->handler.on_bad_message(rpc->ud, err, text, len);
}

static void
handle_response(mcp_rpc_t *rpc, const mcp_msg_t *m)
{
  pending_t *p;
  uint64_t id;
  mcp_error_t err;

  /* A late answer (after a timeout or cancel) or a stranger's id. */
  if (mcp_jsonrpc_id_u64(m->id, &id) != 0)
    return;
  p = table_take(rpc, id);
  if (p == NULL)
    return;
  if (m->kind == MCP_MSG_RESULT) {
    complete(p, NULL, m->result);
    return;
  }
  mcp_error_set(&err, MCP_ERPC, "%s", m->error_message);
  err.rpc_code = m->error_code;
  complete(p, &err, m->error_data);
}

static void
handle_request(mcp_rpc_t *rpc, const mcp_msg_t *m)
{
  mcp_error_t err;
  char msg[160];

  if (strcmp(m->method, "ping") == 0) {
    mcp_rpc_respond(rpc, m->id, NULL, NULL);
    return;
  }
  if (rpc->handler.on_request != NULL &&
      rpc->handler.on_request(rpc->ud, m->id, m->method, m->params))
    return;
  snprintf(msg, sizeof msg, "Method not found: %.120s", m->method);
  if (mcp_rpc_respond_error(rpc, m->id, MCP_RPC_METHOD_NOT_FOUND, msg, NULL,
                            &err) != 0)
    bad_message(rpc, &err, NULL, 0);
}

/* 1 when every member but the result is plain and strictly valid: the
 * result goes to a strict decoder, nothing else is looked at again. A key
 * with an escape or a control byte goes the ordinary way. */
static int
others_valid(const mcp_json_member_t *m, size_t count,
             const mcp_json_member_t *result, int max_depth)
{
  size_t i, k;

  for (i = 0; i < count; i++) {
    for (k = 0; k < m[i].key_len; k++) {
      if ((unsigned char) m[i].key[k] < 0x20 || m[i].key[k] == '\\')
        return 0;
    }
    if (&m[i] != result &&
        mcp_json_check(m[i].value, m[i].value_len, max_depth, NULL) != 0)
      return 0;
  }
  return 1;
}

/* Completes pending request id, which takes raw results, with the text
 * of its result. */
static void
complete_raw(mcp_rpc_t *rpc, uint64_t id, const mcp_json_member_t *result)
{
  pending_t *p = table_take(rpc, id);
  mcp_rpc_raw_cb raw = p->on_raw_result;
  void *data = p->data;

  rpc->raw_requests--;
  deadline_remove(rpc, p);
  pending_free(p);
  raw(data, result->value, result->value_len);
}

/* A result for a request that takes raw results is handed over as text,
 * found by a scan of the top-level members: no tree is built. Returns 1
 * when the message was taken, 0 to go the ordinary way (which also
 * reports anything malformed). */
static int
fast_result(mcp_rpc_t *rpc, const char *text, size_t len)
{
  mcp_json_member_t m[8];
  const mcp_json_member_t *id, *result, *version;
  uint64_t n = 0;
  size_t count, i;
  pending_t *p;

  if (mcp_json_members(text, len, rpc->max_depth, m, 8, &count) != 0 ||
      count > 6 || mcp_json_member(m, count, "method") != NULL ||
      mcp_json_member(m, count, "error") != NULL)
    return 0;
  id = mcp_json_member(m, count, "id");
  result = mcp_json_member(m, count, "result");
  version = mcp_json_member(m, count, "jsonrpc");
  if (id == NULL || result == NULL || version == NULL ||
      version->value_len != 5 || memcmp(version->value, "\"2.0\"", 5) != 0 ||
      id->value_len == 0 || id->value_len > 16 ||
      !others_valid(m, count, result, rpc->max_depth))
    return 0;
  for (i = 0; i < id->value_len; i++) {
    if (id->value[i] < '0' || id->value[i] > '9')
      return 0; /* not an id of ours (a string, a float): the slow way */
    n = n * 10 + (uint64_t) (id->value[i] - '0');
  }
  p = table_find(rpc, n);
  if (p == NULL || p->on_raw_result == NULL)
    return 0;
  complete_raw(rpc, n, result);
  return 1;
}

/* A message that is not valid JSON: when it carries the id of a request
 * of ours, that request fails with the reason now rather than waiting out
 * its deadline; otherwise the message is reported. */
static void
fail_by_raw_id(mcp_rpc_t *rpc, const mcp_error_t *err, const char *text,
               size_t len)
{
  mcp_idscan_t scan;
  const char *id_text;
  size_t id_len, i;
  uint64_t n = 0;
  pending_t *p = NULL;

  mcp_idscan_init(&scan);
  mcp_idscan_feed(&scan, text, len);
  id_text = mcp_idscan_id(&scan, &id_len);
  if (id_text != NULL && id_len > 0 && id_len <= 16) {
    for (i = 0; i < id_len && id_text[i] >= '0' && id_text[i] <= '9'; i++)
      n = n * 10 + (uint64_t) (id_text[i] - '0');
    if (i == id_len)
      p = table_take(rpc, n);
  }
  if (p != NULL)
    complete(p, err, NULL);
  else
    bad_message(rpc, err, text, len);
}

/* A result that did not fit the fast path (more members, an id written
 * otherwise) for a request that takes raw results still goes to it as
 * text: one decoder for every result, whatever its envelope. Returns 1
 * when it was taken. */
static int
raw_result(mcp_rpc_t *rpc, const char *text, size_t len, const mcp_msg_t *m)
{
  mcp_json_member_t mem[16];
  const mcp_json_member_t *result;
  pending_t *p;
  uint64_t id;
  size_t n;

  if (rpc->raw_requests == 0 || mcp_jsonrpc_id_u64(m->id, &id) != 0)
    return 0;
  p = table_find(rpc, id);
  if (p == NULL || p->on_raw_result == NULL ||
      mcp_json_members(text, len, rpc->max_depth, mem, 16, &n) != 0)
    return 0;
  result = mcp_json_member(mem, n, "result");
  if (result == NULL)
    return 0;                  /* past the members recorded: the tree */
  complete_raw(rpc, id, result);
  return 1;
}

/* Member key of members m[0..n) as a cJSON raw item holding its exact
 * text, or NULL. Values the owner is given are raw: it decodes them with
 * its own decoder, since a cJSON tree holds numbers as doubles (id
 * 9007199254740993 would be answered as 9007199254740992) and strings as
 * C strings (cut at an escaped NUL). */
static cJSON *
raw_member(const mcp_json_member_t *m, size_t n, const char *key)
{
  const mcp_json_member_t *v = mcp_json_member(m, n, key);
  cJSON *raw;
  char *copy;

  if (v == NULL)
    return NULL;
  copy = malloc(v->value_len + 1);
  if (copy == NULL)
    return NULL;
  memcpy(copy, v->value, v->value_len);
  copy[v->value_len] = '\0';
  raw = cJSON_CreateRaw(copy);
  free(copy);
  return raw;
}

/* The data of an error response, raw (see raw_member), or NULL. */
static cJSON *
raw_error_data(const mcp_rpc_t *rpc, const mcp_json_member_t *m, size_t n)
{
  const mcp_json_member_t *error = mcp_json_member(m, n, "error");
  mcp_json_member_t sub[8];
  size_t nsub;

  if (error == NULL || mcp_json_members(error->value, error->value_len,
                                        rpc->max_depth, sub, 8, &nsub) != 0)
    return NULL;
  return raw_member(sub, nsub, "data");
}

static void
on_message(void *ud, const char *text, size_t len)
{
  mcp_rpc_t *rpc = ud;
  mcp_json_member_t mem[16];
  mcp_error_t err;
  mcp_msg_t m;
  cJSON *msg, *raw = NULL, *raw_id = NULL;
  size_t nmem = 0;
  int kind;

  if (!rpc->open)
    return;
  if (rpc->trace != NULL)
    trace_message(rpc, "< ", text, len);
  if (rpc->raw_requests > 0 && fast_result(rpc, text, len))
    return;
  msg = mcp_json_parse(text, len, rpc->max_depth, &err);
  if (msg == NULL) {
    fail_by_raw_id(rpc, &err, text, len);
    return;
  }
  kind = mcp_jsonrpc_classify(msg, &m);
  /* The members, for the values the owner gets raw (the text is valid
   * JSON by now: mcp_json_parse checked it). */
  if (kind != MCP_MSG_RESULT &&
      mcp_json_members(text, len, rpc->max_depth, mem, 16, &nmem) != 0)
    nmem = 0;
  switch (kind) {
  case MCP_MSG_RESULT:
    if (!raw_result(rpc, text, len, &m))
      handle_response(rpc, &m);
    break;
  case MCP_MSG_ERROR:
    raw = m.error_data != NULL ? raw_error_data(rpc, mem, nmem) : NULL;
    if (raw != NULL)
      m.error_data = raw;
    handle_response(rpc, &m);
    break;
  case MCP_MSG_REQUEST:
    raw_id = cJSON_IsNumber(m.id) ? raw_member(mem, nmem, "id") : NULL;
    if (raw_id != NULL)
      m.id = raw_id;
    raw = m.params != NULL ? raw_member(mem, nmem, "params") : NULL;
    if (raw != NULL)
      m.params = raw;
    handle_request(rpc, &m);
    break;
  case MCP_MSG_NOTIFICATION:
    raw = m.params != NULL ? raw_member(mem, nmem, "params") : NULL;
    if (strcmp(m.method, "notifications/progress") == 0 &&
        cJSON_IsObject(m.params) &&
        handle_progress(rpc, m.params, raw != NULL ? raw : m.params))
      break;
    if (rpc->handler.on_notification != NULL)
      rpc->handler.on_notification(rpc->ud, m.method,
                                   raw != NULL ? raw : m.params);
    break;
  default:
    mcp_error_set(&err, MCP_EPROTO, "invalid JSON-RPC message: %s", m.why);
    bad_message(rpc, &err, text, len);
    if (m.id != NULL && cJSON_GetObjectItemCaseSensitive(msg, "method"))
      mcp_rpc_respond_error(rpc, m.id, MCP_RPC_INVALID_REQUEST, m.why, NULL,
                            NULL);
    break;
  }
  cJSON_Delete(raw);
  cJSON_Delete(raw_id);
  cJSON_Delete(msg);
}

static void
on_oversize(void *ud, size_t size, const char *id_text, size_t id_len)
{
  mcp_rpc_t *rpc = ud;
  mcp_error_t err;
  pending_t *p = NULL;
  cJSON *id;

  mcp_error_set(&err, MCP_ETOOBIG, "message of %zu bytes exceeds the limit",
                size);
  if (id_text != NULL) {
    uint64_t n;

    id = cJSON_ParseWithLength(id_text, id_len);
    if (id != NULL && mcp_jsonrpc_id_u64(id, &n) == 0)
      p = table_take(rpc, n);
    cJSON_Delete(id);
  }
  if (p != NULL)
    complete(p, &err, NULL);
  else
    bad_message(rpc, &err, NULL, 0);
}

static void
on_log(void *ud, const char *line, size_t len)
{
  mcp_rpc_t *rpc = ud;

  if (rpc->handler.on_log != NULL)
    rpc->handler.on_log(rpc->ud, line, len);
}

static void
fail_all(mcp_rpc_t *rpc, const mcp_error_t *err)
{
  pending_t *p;

  /* One at a time: a completion may start or end other work. */
  while ((p = table_take_any(rpc)) != NULL)
    complete(p, err, NULL);
}

static void
on_lost(void *ud, const mcp_error_t *err)
{
  mcp_rpc_t *rpc = ud;
  int was_open = rpc->open;

  rpc->open = 0;
  /* The owner first: a failed request's callback may start another at
   * once, which must find the owner knowing the endpoint is gone. */
  if (was_open && rpc->handler.on_lost != NULL)
    rpc->handler.on_lost(rpc->ud, err);
  fail_all(rpc, err);
  if (rpc->transport != NULL)
    rpc->transport->vt->close(rpc->transport);
}

static void
on_transport_closed(void *ud)
{
  mcp_rpc_t *rpc = ud;

  rpc->transport = NULL;
  rpc->transport_closed = 1;
  if (rpc->timer_inited) {
    rpc->timer_inited = 0;
    rpc->timer_closing = 1;
    uv_close((uv_handle_t *) &rpc->timer, on_timer_closed);
  }
  maybe_free(rpc);
}

static void
on_request_failed(void *ud, uint64_t id, const mcp_error_t *err)
{
  mcp_rpc_t *rpc = ud;
  pending_t *p;

  /* A request that did not run (its session expired, there was no
   * connection, or it needs authorization) may go again, when its text was kept and the owner says
   * so. */
  p = table_find(rpc, id);
  if (p != NULL && err->code == MCP_ENEEDSAUTH) {
    if (p->auth_tries == MAX_AUTH_TRIES)
      p = NULL;                  /* fails with the server's refusal */
    else
      p->auth_tries++;
  }
  if (p != NULL && (err->code == MCP_ESESSION || err->code == MCP_ECONNECT ||
                    err->code == MCP_ENEEDSAUTH) &&
      p->text != NULL && !p->held && rpc->handler.on_unsent != NULL) {
    switch (rpc->handler.on_unsent(rpc->ud, p->epoch, err)) {
    case MCP_UNSENT_HOLD:
      p = table_find(rpc, id);     /* the owner may have ended it */
      if (p != NULL) {
        p->held = 1;
        rpc->held++;
      }
      return;
    case MCP_UNSENT_RESEND:
      p = table_find(rpc, id);
      if (p != NULL) {
        p->held = 1;
        rpc->held++;
        mcp_rpc_resend_held(rpc);
      }
      return;
    default:
      break;
    }
  }
  p = table_take(rpc, id);
  if (p != NULL)
    complete(p, err, NULL);
}

/* Collects the held requests (they may complete meanwhile: a callback
 * can cancel others), lowest id first. */
static size_t
take_held_ids(mcp_rpc_t *rpc, uint64_t **ids)
{
  size_t i, n = 0;
  pending_t *p;

  *ids = rpc->held > 0 ? malloc(rpc->held * sizeof **ids) : NULL;
  if (*ids == NULL)
    return 0;
  for (i = 0; i < rpc->nbuckets; i++) {
    for (p = rpc->buckets[i]; p != NULL; p = p->next) {
      if (p->held && n < rpc->held)
        (*ids)[n++] = p->id;
    }
  }
  return n;
}

void
mcp_rpc_resend_held(mcp_rpc_t *rpc)
{
  uint64_t *ids;
  size_t i, n = take_held_ids(rpc, &ids);
  mcp_error_t err;

  for (i = 0; i < n; i++) {
    pending_t *p = table_find(rpc, ids[i]);

    if (p == NULL || !p->held)
      continue;
    p->held = 0;
    rpc->held--;
    p->epoch = rpc->epoch;
    if (rpc->transport == NULL || !rpc->open ||
        transport_send(rpc, p->text, p->text_len, p->id, &err) != 0) {
      if (rpc->transport == NULL || !rpc->open)
        mcp_error_set(&err, MCP_ECLOSED, "connection closed");
      complete(table_take(rpc, p->id), &err, NULL);
    }
  }
  free(ids);
}

void
mcp_rpc_fail_held(mcp_rpc_t *rpc, const mcp_error_t *err)
{
  uint64_t *ids;
  size_t i, n = take_held_ids(rpc, &ids);

  for (i = 0; i < n; i++) {
    pending_t *p = table_find(rpc, ids[i]);

    if (p != NULL && p->held)
      complete(table_take(rpc, p->id), err, NULL);
  }
  free(ids);
}

void
mcp_rpc_set_epoch(mcp_rpc_t *rpc, unsigned epoch)
{
  rpc->epoch = epoch;
}

static int
is_pending(void *ud, uint64_t id)
{
  return table_find(ud, id) != NULL;
}

const mcp_transport_cb_t *
mcp_rpc_transport_cb(void)
{
  static const mcp_transport_cb_t cb = {
    on_message, on_oversize, on_log, on_lost, on_transport_closed,
    on_request_failed, is_pending
  };

  return &cb;
}

/* ---- life ---------------------------------------------------------------- */

mcp_rpc_t *
mcp_rpc_new(uv_loop_t *loop, const mcp_rpc_opts_t *opts,
            const mcp_rpc_handler_t *handler, void *ud)
{
  mcp_rpc_t *rpc = calloc(1, sizeof *rpc);

  if (rpc == NULL)
    return NULL;
  rpc->loop = loop;
  rpc->handler = *handler;
  rpc->ud = ud;
  rpc->next_id = 1;
  mcp_buf_init(&rpc->out, 0);
  rpc->max_depth = (opts && opts->max_depth) ? opts->max_depth
                                             : MCP_DEFAULT_MAX_DEPTH;
  rpc->timeout_ms = (opts && opts->timeout_ms) ? opts->timeout_ms
                                               : MCP_DEFAULT_TIMEOUT_MS;
  rpc->keep_texts = opts != NULL && opts->keep_texts;
  if (opts != NULL) {
    rpc->trace = opts->trace;
    rpc->trace_ud = opts->trace_ud;
  }
  if (table_grow(rpc) != 0) {
    free(rpc);
    return NULL;
  }
  return rpc;
}

void
mcp_rpc_attach(mcp_rpc_t *rpc, mcp_transport_t *t)
{
  rpc->transport = t;
  rpc->open = 1;
}

void
mcp_rpc_discard(mcp_rpc_t *rpc)
{
  mcp_buf_free(&rpc->out);
  free(rpc->envelope);
  free(rpc->buckets);
  free(rpc);
}

void
mcp_rpc_abort(mcp_rpc_t *rpc, const mcp_error_t *err)
{
  if (rpc->transport == NULL)
    return;
  rpc->open = 0;
  fail_all(rpc, err);
  if (rpc->transport != NULL)
    rpc->transport->vt->close(rpc->transport);
}

void
mcp_rpc_close(mcp_rpc_t *rpc)
{
  mcp_error_t err;
  pending_t *p;
  size_t i;

  /* The server hears that nothing it was asked for is waited for any
   * more (a tool may stop its work), before its input closes. */
  for (i = 0; rpc->open && i < rpc->nbuckets; i++) {
    for (p = rpc->buckets[i]; p != NULL; p = p->next) {
      if (!p->no_cancel && !p->held)
        send_cancelled(rpc, p->id, "the client is closing");
    }
  }
  mcp_error_set(&err, MCP_ECLOSED, "connection closed by the client");
  mcp_rpc_abort(rpc, &err);
}

int
mcp_rpc_set_envelope(mcp_rpc_t *rpc, const char *members)
{
  char *copy = NULL;

  if (members != NULL && (copy = strdup(members)) == NULL)
    return MCP_ENOMEM;
  free(rpc->envelope);
  rpc->envelope = copy;
  return 0;
}

int
mcp_rpc_is_open(const mcp_rpc_t *rpc)
{
  return rpc->open;
}

size_t
mcp_rpc_pending_count(const mcp_rpc_t *rpc)
{
  return rpc->npending;
}

uint64_t
mcp_rpc_now(const mcp_rpc_t *rpc)
{
  return uv_now(rpc->loop);
}

void
mcp_rpc_set_era(mcp_rpc_t *rpc, const char *stateless_version)
{
  if (rpc->transport != NULL && rpc->transport->vt->set_era != NULL)
    rpc->transport->vt->set_era(rpc->transport, stateless_version);
}

void
mcp_rpc_initialized(mcp_rpc_t *rpc, const char *version)
{
  if (rpc->transport != NULL && rpc->transport->vt->initialized != NULL)
    rpc->transport->vt->initialized(rpc->transport, version);
}

size_t
mcp_rpc_diagnostics(const mcp_rpc_t *rpc, char *out, size_t cap)
{
  if (rpc->transport == NULL) {
    if (cap > 0)
      out[0] = '\0';
    return 0;
  }
  return rpc->transport->vt->diagnostics(rpc->transport, out, cap);
}

const char *
mcp_rpc_last_request(const mcp_rpc_t *rpc, size_t *len)
{
  *len = rpc->out.len;
  return rpc->out.len > 0 ? rpc->out.data : NULL;
}
