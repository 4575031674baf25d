/*
 * client.c - one MCP client connection: rpc endpoint, numbered session,
 * and the renewal of an expired session (see client.h). A session begins
 * through the era adapter (era.h).
 *
 * Does not frame, carry or classify messages (rpc.c and the transports
 * do) and does not negotiate versions (session.c does).
 */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "era.h"
#include "json.h"
#include "jsonscan.h"
#include "session.h"
#include "transport_http.h"
#include "transport_stdio.h"

/* Waiting for a server that cannot be connected to: the first retry after
 * RECONNECT_MIN_MS, doubling up to RECONNECT_MAX_MS, each +-25% so that
 * many clients do not come back at once. Requests wait within their own
 * deadlines. */
#define RECONNECT_MIN_MS 250u
#define RECONNECT_MAX_MS 5000u
#define RECONNECT_QUIET_MS 10000u   /* a failure after this much: start over */

/* What a request set up on the server, which a new session must get again. */
typedef enum { SETUP_NONE, SETUP_LEVEL, SETUP_SUBSCRIBE, SETUP_UNSUBSCRIBE }
setup_kind_t;

typedef struct sub_s {
  char *uri;
  struct sub_s *next;
} sub_t;

/* How to start a stdio server again after it died (owned copies). */
typedef struct restart_s {
  mcp_stdio_opts_t opts;
  char **argv, **env, *cwd;
  unsigned max;                /* restarts allowed in a row */
  unsigned made;               /* made since the last good handshake */
  uint64_t backoff_ms;         /* before the first; doubles each time */
} restart_t;

struct mcp_client_s {
  uv_loop_t *loop;
  mcp_rpc_t *rpc;
  mcp_transport_t *transport;  /* owned by rpc */
  void (*reset_session)(mcp_transport_t *t);
  mcp_session_t session;
  mcp_client_cb_t cb;
  void *ud;
  unsigned number;             /* the session's; 0 before the first */
  int sessions;                /* sessions can expire */
  cJSON *capabilities;         /* of the first handshake, for the next */
  cJSON *client_info;          /* likewise; NULL: luamcp's own */
  uint64_t init_timeout_ms;
  char *log_level;             /* set up: restored in a new session */
  sub_t *subs;
  int restoring;               /* restore requests not answered yet */
  mcp_client_ready_cb init_cb; /* the owner's first handshake */
  void *init_data;
  uv_timer_t timer;            /* the next try to connect, or restart */
  unsigned attempts;           /* failed connects in a row */
  uint64_t last_failure;       /* loop time of the last */
  mcp_rpc_opts_t rpc_opts;     /* for the endpoint of a restart */
  const mcp_era_t *era;        /* how a session begins (era.h) */
  restart_t *restart;          /* NULL: a dead server stays dead */
  mcp_error_t down_err;        /* why the server stopped, while down */
  char *down_tail;             /* its stderr tail, while down */
  mcp_auth_t *auth;            /* OAuth for an HTTP server, or NULL */
  mcp_error_t refusal;         /* the 401/403 the OAuth round answers */
  unsigned renewing : 1;       /* a new handshake is under way */
  unsigned authorizing : 1;    /* an OAuth round is under way */
  unsigned closing : 1;
  unsigned timer_inited : 1;
  unsigned down : 1;           /* the server died; a restart is due */
};

/* A request that sets something up, watched so that it can be restored. */
typedef struct setup_req_s {
  mcp_client_t *c;
  setup_kind_t kind;
  char *value;                 /* the level or the URI */
  mcp_rpc_done_cb cb;
  mcp_rpc_raw_cb raw;
  void *data;
} setup_req_t;

static void renewed(void *data, const mcp_error_t *err, const cJSON *result);

/* ---- the rpc endpoint's handler ------------------------------------------ */

static int
on_request(void *ud, const cJSON *id, const char *method, const cJSON *params)
{
  mcp_client_t *c = ud;

  /* A server of the stateless era sends no requests (its questions come
   * as input_required results): one that does gets no answer at all. */
  if (c->session.stateless)
    return 1;
  return c->cb.on_request != NULL &&
         c->cb.on_request(c->ud, id, method, params);
}

static void
on_notification(void *ud, const char *method, const cJSON *params)
{
  mcp_client_t *c = ud;

  if (c->cb.on_notification != NULL)
    c->cb.on_notification(c->ud, method, params);
}

static void
on_bad_message(void *ud, const mcp_error_t *err, const char *text, size_t len)
{
  mcp_client_t *c = ud;

  if (c->cb.on_bad_message != NULL)
    c->cb.on_bad_message(c->ud, err, text, len);
}

static void
on_log(void *ud, const char *line, size_t len)
{
  mcp_client_t *c = ud;

  if (c->cb.on_log != NULL)
    c->cb.on_log(c->ud, line, len);
}

static int restart_due(mcp_client_t *c, const mcp_error_t *err);

static void
on_lost(void *ud, const mcp_error_t *err)
{
  mcp_client_t *c = ud;

  if (restart_due(c, err)) {
    /* The owner hears of a new session, or of the loss, later. */
    if (c->cb.on_down != NULL)
      c->cb.on_down(c->ud, err);
    return;
  }
  if (c->cb.on_lost != NULL)
    c->cb.on_lost(c->ud, err);
}

static void
restart_free(restart_t *r)
{
  size_t i;

  if (r == NULL)
    return;
  for (i = 0; r->argv != NULL && r->argv[i] != NULL; i++)
    free(r->argv[i]);
  for (i = 0; r->env != NULL && r->env[i] != NULL; i++)
    free(r->env[i]);
  free(r->argv);
  free(r->env);
  free(r->cwd);
  free(r);
}

static void
client_free(mcp_client_t *c)
{
  sub_t *s;

  restart_free(c->restart);
  free(c->down_tail);
  while ((s = c->subs) != NULL) {
    c->subs = s->next;
    free(s->uri);
    free(s);
  }
  mcp_session_free(&c->session);
  mcp_auth_close(c->auth);
  cJSON_Delete(c->capabilities);
  cJSON_Delete(c->client_info);
  free(c->log_level);
  free(c);
}

static void
timer_closed(uv_handle_t *h)
{
  client_free(h->data);
}

static void restart_now(uv_timer_t *t);

/* Tells the owner the client is closed, and frees it. */
static void
closed(mcp_client_t *c)
{
  if (c->cb.on_closed != NULL)
    c->cb.on_closed(c->ud);
  if (c->timer_inited)
    uv_close((uv_handle_t *) &c->timer, timer_closed);
  else
    client_free(c);
}

static int arm_timer(mcp_client_t *c, uv_timer_cb cb, uint64_t ms);

static void
on_closed(void *ud)
{
  mcp_client_t *c = ud;
  uint64_t delay;

  c->rpc = NULL;
  c->transport = NULL;
  if (!c->down || c->closing) {
    closed(c);
    return;
  }
  /* The dead server's endpoint is gone: start another after the
   * backoff, which doubles with each restart in a row. */
  delay = c->restart->backoff_ms << (c->restart->made < 6 ? c->restart->made
                                                          : 6);
  if (arm_timer(c, restart_now, delay) != 0) {
    c->down = 0;
    if (c->cb.on_lost != NULL)
      c->cb.on_lost(c->ud, &c->down_err);
    closed(c);
  }
}

/* Starts the client's timer; 0, or a libuv error. */
static int
arm_timer(mcp_client_t *c, uv_timer_cb cb, uint64_t ms)
{
  if (!c->timer_inited) {
    if (uv_timer_init(c->loop, &c->timer) != 0)
      return -1;
    c->timer.data = c;
    c->timer_inited = 1;
  }
  return uv_timer_start(&c->timer, cb, ms, 0);
}

static void
on_reconnect(uv_timer_t *t)
{
  mcp_client_t *c = t->data;

  if (c->rpc != NULL && !c->closing && !c->renewing)
    mcp_rpc_resend_held(c->rpc);
}

/* A request found no connection: it waits, and the held requests are
 * tried again after the backoff. */
static int
wait_for_connection(mcp_client_t *c)
{
  uint64_t now = uv_now(c->loop), delay;

  if (now - c->last_failure > RECONNECT_QUIET_MS)
    c->attempts = 0;
  c->last_failure = now;
  if (c->timer_inited && uv_is_active((uv_handle_t *) &c->timer))
    return MCP_UNSENT_HOLD;       /* a retry is already due */
  delay = RECONNECT_MIN_MS << (c->attempts < 5 ? c->attempts : 5);
  if (delay > RECONNECT_MAX_MS)
    delay = RECONNECT_MAX_MS;
  /* Jitter: not a secret, so the clock's low bits will do. */
  delay = delay * 3 / 4 + uv_hrtime() % (delay / 2 + 1);
  c->attempts++;
  if (arm_timer(c, on_reconnect, delay) != 0)
    return MCP_UNSENT_FAIL;
  return MCP_UNSENT_HOLD;
}

/* A request did not run. With no connection, it waits for one. When its
 * session (`epoch`) expired, it is sent again once a newer session exists:
 * at once when one already does, else after the handshake the first such
 * request starts. */
/* An OAuth round ended: the held requests go again with the new token,
 * or fail with why none could be had. */
static void
authorized(void *data, const mcp_error_t *err)
{
  mcp_client_t *c = data;

  c->authorizing = 0;
  if (c->rpc == NULL || c->closing)
    return;
  if (err != NULL) {
    /* The server's refusal stays readable: its status and challenge. */
    mcp_error_t e = *err;

    e.status = c->refusal.status;
    memcpy(e.challenge, c->refusal.challenge, sizeof e.challenge);
    mcp_rpc_fail_held(c->rpc, &e);
  }
  else if (!c->renewing)
    mcp_rpc_resend_held(c->rpc);
}

/* The server refused a request for want of authorization: it waits for
 * one OAuth round, however many requests were refused. */
static int
wait_for_authorization(mcp_client_t *c, const mcp_error_t *why)
{
  mcp_error_t err;

  if (c->auth == NULL)
    return MCP_UNSENT_FAIL;
  if (c->authorizing)
    return MCP_UNSENT_HOLD;
  c->authorizing = 1;
  c->refusal = *why;
  if (mcp_auth_challenge(c->auth, why->status,
                         why->challenge[0] != '\0' ? why->challenge : NULL,
                         authorized, c, &err) != 0) {
    c->authorizing = 0;
    return MCP_UNSENT_FAIL;
  }
  return MCP_UNSENT_HOLD;
}

static int
on_unsent(void *ud, unsigned epoch, const mcp_error_t *why)
{
  mcp_client_t *c = ud;
  mcp_error_t err;

  if (!c->closing && why->code == MCP_ENEEDSAUTH)
    return wait_for_authorization(c, why);
  if (c->closing || c->number == 0)
    return MCP_UNSENT_FAIL;
  if (why->code == MCP_ECONNECT)
    return wait_for_connection(c);
  if (epoch < c->number && !c->renewing)
    return MCP_UNSENT_RESEND;
  if (c->renewing)
    return MCP_UNSENT_HOLD;
  c->renewing = 1;
  if (c->reset_session != NULL)
    c->reset_session(c->transport);
  if (c->era->begin(&c->session, c->capabilities, c->client_info,
                    c->init_timeout_ms, renewed, c, &err) != 0) {
    c->renewing = 0;
    mcp_rpc_fail_held(c->rpc, &err);
    return MCP_UNSENT_FAIL;
  }
  return MCP_UNSENT_HOLD;
}

/* ---- a new session ------------------------------------------------------- */

/* The restore is done (each request of it is best effort): the held
 * requests go again, and the owner hears of the new session. */
static void
restored(mcp_client_t *c)
{
  c->renewing = 0;
  mcp_rpc_resend_held(c->rpc);
  if (c->cb.on_session != NULL && c->session.init_result != NULL)
    c->cb.on_session(c->ud, c->number, c->session.init_result);
}

static void
restore_done(void *data, const mcp_error_t *err, const cJSON *value)
{
  mcp_client_t *c = data;

  MCP_UNUSED(err);
  MCP_UNUSED(value);
  if (--c->restoring == 0 && c->rpc != NULL)
    restored(c);
}

/* Sends method {key: value} as part of the restore. */
static void
restore_one(mcp_client_t *c, const char *method, const char *key,
            const char *value)
{
  mcp_rpc_req_opts_t opts = { c->init_timeout_ms, 0, NULL, 0, NULL };
  cJSON *params = cJSON_CreateObject();

  if (params == NULL || cJSON_AddStringToObject(params, key, value) == NULL) {
    cJSON_Delete(params);
    return;
  }
  if (mcp_rpc_request(c->rpc, method, params, &opts, restore_done, c, NULL,
                      NULL) == 0)
    c->restoring++;
  cJSON_Delete(params);
}

static void begin_session(mcp_client_t *c);
static const mcp_rpc_handler_t *client_handler(void);

static void
renewed(void *data, const mcp_error_t *err, const cJSON *result)
{
  mcp_client_t *c = data;

  MCP_UNUSED(result);
  if (err != NULL) {
    mcp_error_t why;

    c->renewing = 0;
    mcp_error_set(&why, err->code, "the session expired and a new one "
                  "could not begin: %s", err->msg);
    mcp_rpc_fail_held(c->rpc, &why);
    return;
  }
  begin_session(c);
}

/* A new session (after an expiry or a restart): it gets the next number
 * and what the client had set up, then held requests go again and the
 * owner hears of it (restored). */
static void
begin_session(mcp_client_t *c)
{
  sub_t *s;

  c->number++;
  mcp_rpc_set_epoch(c->rpc, c->number);
  /* restoring counts one more until everything is sent, so that answers
   * that come at once cannot finish the restore early. */
  c->restoring = 1;
  /* The stateless era keeps no set-up on the server to restore. */
  if (c->log_level != NULL && !c->session.stateless)
    restore_one(c, "logging/setLevel", "level", c->log_level);
  for (s = c->subs; s != NULL && !c->session.stateless; s = s->next)
    restore_one(c, "resources/subscribe", "uri", s->uri);
  if (cJSON_GetObjectItemCaseSensitive(c->capabilities, "roots") != NULL &&
      !c->session.stateless)
    mcp_rpc_notify(c->rpc, "notifications/roots/list_changed", NULL, NULL);
  restore_done(c, NULL, NULL);
}

/* ---- restarting a stdio server ------------------------------------------- */

/* The server died (err): 1 when a restart is due, 0 when the loss is
 * final (no restarts asked for, all used, or the client is closing). */
static int
restart_due(mcp_client_t *c, const mcp_error_t *err)
{
  char tail[4096];

  if (c->restart == NULL || c->closing || c->number == 0 ||
      c->restart->made >= c->restart->max)
    return 0;
  c->down = 1;
  c->down_err = *err;
  free(c->down_tail);
  c->down_tail = NULL;
  if (mcp_rpc_diagnostics(c->rpc, tail, sizeof tail) > 0)
    c->down_tail = strdup(tail);
  return 1;
}

/* Gives up on a server that could not be restarted: the owner hears of
 * the loss, then of the close. */
static void
give_up(mcp_client_t *c, const mcp_error_t *err)
{
  c->down = 0;
  if (c->cb.on_lost != NULL)
    c->cb.on_lost(c->ud, err);
  if (c->rpc != NULL)
    mcp_rpc_close(c->rpc);     /* on_closed follows */
  else
    closed(c);
}

static void
reborn(void *data, const mcp_error_t *err, const cJSON *result)
{
  mcp_client_t *c = data;

  MCP_UNUSED(result);
  if (err != NULL) {
    /* Started but no handshake: stop it; on_closed tries again. */
    c->down = 1;
    c->down_err = *err;
    mcp_rpc_close(c->rpc);
    return;
  }
  c->restart->made = 0;
  begin_session(c);
}

static void
restart_now(uv_timer_t *t)
{
  mcp_client_t *c = t->data;
  mcp_transport_t *tr;
  mcp_error_t err;

  if (c->closing || !c->down)
    return;
  c->restart->made++;
  c->rpc = mcp_rpc_new(c->loop, &c->rpc_opts, client_handler(), c);
  if (c->rpc == NULL) {
    mcp_error_set(&err, MCP_ENOMEM, NULL);
    give_up(c, &err);
    return;
  }
  if (mcp_transport_stdio_new(c->loop, &c->restart->opts,
                              mcp_rpc_transport_cb(), c->rpc, &tr,
                              &err) != 0) {
    mcp_rpc_discard(c->rpc);
    c->rpc = NULL;
    give_up(c, &err);
    return;
  }
  mcp_rpc_attach(c->rpc, tr);
  c->transport = tr;
  c->down = 0;
  free(c->down_tail);
  c->down_tail = NULL;
  mcp_session_free(&c->session);
  mcp_session_init(&c->session, c->rpc);
  if (c->era->begin(&c->session, c->capabilities, c->client_info,
                    c->init_timeout_ms, reborn, c, &err) != 0) {
    c->down = 1;
    c->down_err = err;
    mcp_rpc_close(c->rpc);
  }
}

/* ---- set-up to restore --------------------------------------------------- */

static void
remember(mcp_client_t *c, setup_kind_t kind, char *value)
{
  sub_t **pp, *s;

  if (kind == SETUP_LEVEL) {
    free(c->log_level);
    c->log_level = value;
    return;
  }
  for (pp = &c->subs; *pp != NULL; pp = &(*pp)->next) {
    if (strcmp((*pp)->uri, value) == 0)
      break;
  }
  if (kind == SETUP_UNSUBSCRIBE && *pp != NULL) {
    s = *pp;
    *pp = s->next;
    free(s->uri);
    free(s);
  } else if (kind == SETUP_SUBSCRIBE && *pp == NULL) {
    s = malloc(sizeof *s);
    if (s != NULL) {
      s->uri = value;
      s->next = c->subs;
      c->subs = s;
      return;
    }
  }
  free(value);
}

static void
setup_finish(setup_req_t *r, int succeeded)
{
  if (succeeded && r->value != NULL && r->c->rpc != NULL)
    remember(r->c, r->kind, r->value);
  else
    free(r->value);
  free(r);
}

static void
setup_done(void *data, const mcp_error_t *err, const cJSON *value)
{
  setup_req_t *r = data;
  mcp_rpc_done_cb cb = r->cb;
  void *cb_data = r->data;

  setup_finish(r, err == NULL);
  cb(cb_data, err, value);
}

static void
setup_raw(void *data, const char *text, size_t len)
{
  setup_req_t *r = data;
  mcp_rpc_raw_cb raw = r->raw;
  void *cb_data = r->data;

  setup_finish(r, 1);
  raw(cb_data, text, len);
}

static setup_kind_t
setup_kind(const char *method)
{
  if (strcmp(method, "logging/setLevel") == 0)
    return SETUP_LEVEL;
  if (strcmp(method, "resources/subscribe") == 0)
    return SETUP_SUBSCRIBE;
  if (strcmp(method, "resources/unsubscribe") == 0)
    return SETUP_UNSUBSCRIBE;
  return SETUP_NONE;
}

/* The level or URI in the params of the request just sent. */
static char *
setup_value(mcp_client_t *c, uint64_t id, setup_kind_t kind)
{
  const char *text, *v;
  size_t len;
  cJSON *msg;
  char *value = NULL;

  MCP_UNUSED(id);
  text = mcp_rpc_last_request(c->rpc, &len);
  if (text == NULL)
    return NULL;
  msg = mcp_json_parse(text, len, 0, NULL);
  v = mcp_json_string(mcp_json_object(msg, "params"),
                      kind == SETUP_LEVEL ? "level" : "uri");
  if (v != NULL)
    value = strdup(v);
  cJSON_Delete(msg);
  return value;
}

/* ---- the API ------------------------------------------------------------ */

static const mcp_rpc_handler_t *
client_handler(void)
{
  static const mcp_rpc_handler_t handler = {
    on_request, on_notification, on_bad_message, on_log, on_lost, on_closed,
    on_unsent
  };

  return &handler;
}

mcp_client_t *
mcp_client_new(uv_loop_t *loop, const mcp_rpc_opts_t *opts, int sessions,
               const mcp_client_cb_t *cb, void *ud)
{
  mcp_rpc_opts_t ro;
  mcp_client_t *c = calloc(1, sizeof *c);

  if (c == NULL)
    return NULL;
  memset(&ro, 0, sizeof ro);
  if (opts != NULL)
    ro = *opts;
  ro.keep_texts = sessions;
  c->loop = loop;
  c->cb = *cb;
  c->ud = ud;
  c->sessions = sessions;
  c->era = &mcp_era_auto;
  c->rpc_opts = ro;
  c->rpc = mcp_rpc_new(loop, &ro, client_handler(), c);
  if (c->rpc == NULL) {
    free(c);
    return NULL;
  }
  mcp_session_init(&c->session, c->rpc);
  return c;
}

const mcp_transport_cb_t *
mcp_client_transport_cb(void)
{
  return mcp_rpc_transport_cb();
}

void *
mcp_client_transport_ud(mcp_client_t *c)
{
  return c->rpc;
}

/* The flow has a new token: sent from the next request on. */
static void
token_changed(void *ud, const char *header)
{
  mcp_client_t *c = ud;

  if (c->transport != NULL)
    mcp_transport_http_set_authorization(c->transport, header);
}

/* DPoP: each request to the server gets its proof from the flow. */
static int
dpop_proof(void *ud, const char *method, const char *url, char **line,
           mcp_error_t *err)
{
  return mcp_auth_proof(ud, method, url, line, err);
}

static void
dpop_nonce(void *ud, const char *nonce)
{
  mcp_auth_nonce(ud, nonce);
}

void
mcp_client_use_auth(mcp_client_t *c, mcp_auth_t *auth)
{
  c->auth = auth;
  mcp_auth_watch(auth, token_changed, c);
  token_changed(c, mcp_auth_header(auth));
  if (c->transport != NULL)
    mcp_transport_http_set_proof(c->transport, dpop_proof, dpop_nonce, auth);
}

void
mcp_client_attach(mcp_client_t *c, mcp_transport_t *t,
                  void (*reset_session)(mcp_transport_t *t))
{
  c->transport = t;
  c->reset_session = reset_session;
  mcp_rpc_attach(c->rpc, t);
}

/* A copy of a NULL-terminated list of strings (NULL stays NULL). */
static char **
dup_list(const char *const *list, int *failed)
{
  size_t n = 0, i;
  char **copy;

  if (list == NULL)
    return NULL;
  while (list[n] != NULL)
    n++;
  copy = calloc(n + 1, sizeof *copy);
  if (copy == NULL) {
    *failed = 1;
    return NULL;
  }
  for (i = 0; i < n; i++) {
    copy[i] = strdup(list[i]);
    if (copy[i] == NULL)
      *failed = 1;
  }
  return copy;
}

int
mcp_client_restart_stdio(mcp_client_t *c, const mcp_stdio_opts_t *opts,
                         unsigned max, uint64_t backoff_ms)
{
  restart_t *r = calloc(1, sizeof *r);
  int failed = r == NULL;

  if (r != NULL) {
    r->opts = *opts;
    r->argv = dup_list(opts->process.argv, &failed);
    r->env = dup_list(opts->process.env, &failed);
    r->cwd = opts->process.cwd != NULL ? strdup(opts->process.cwd) : NULL;
    failed |= opts->process.cwd != NULL && r->cwd == NULL;
    r->opts.process.argv = (const char *const *) r->argv;
    r->opts.process.env = (const char *const *) r->env;
    r->opts.process.cwd = r->cwd;
    r->max = max;
    r->backoff_ms = backoff_ms;
  }
  if (failed) {
    restart_free(r);
    return MCP_ENOMEM;
  }
  restart_free(c->restart);
  c->restart = r;
  return 0;
}

void
mcp_client_discard(mcp_client_t *c)
{
  mcp_rpc_discard(c->rpc);
  c->rpc = NULL;
  client_free(c);
}

static void
initialized(void *data, const mcp_error_t *err, const cJSON *result)
{
  mcp_client_t *c = data;

  if (err == NULL) {
    c->number = 1;
    mcp_rpc_set_epoch(c->rpc, 1);
    /* The era is decided once per client (checklist 1.5): a renewed
     * session or a restarted server begins in it without a new probe. */
    c->era = c->session.stateless ? &mcp_era_stateless : &mcp_era_handshake;
  }
  c->init_cb(c->init_data, err, result);
}

int
mcp_client_initialize(mcp_client_t *c, const cJSON *capabilities,
                      const cJSON *client_info, uint64_t timeout_ms,
                      mcp_client_ready_cb cb, void *data, mcp_error_t *err)
{
  cJSON_Delete(c->capabilities);
  cJSON_Delete(c->client_info);
  c->capabilities = capabilities != NULL ? cJSON_Duplicate(capabilities, 1)
                                         : cJSON_CreateObject();
  c->client_info = client_info != NULL ? cJSON_Duplicate(client_info, 1)
                                       : NULL;
  if (c->capabilities == NULL || (client_info != NULL && !c->client_info))
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  c->init_timeout_ms = timeout_ms;
  c->init_cb = cb;
  c->init_data = data;
  return c->era->begin(&c->session, c->capabilities, c->client_info,
                       timeout_ms, initialized, c, err);
}

int
mcp_client_set_protocol(mcp_client_t *c, const char *protocol,
                        mcp_error_t *err)
{
  if (protocol == NULL || strcmp(protocol, "auto") == 0)
    c->era = &mcp_era_auto;
  else if (strcmp(protocol, MCP_STATELESS_VERSION) == 0)
    c->era = &mcp_era_stateless;
  else if (mcp_session_version_supported(protocol))
    c->era = &mcp_era_handshake;
  else
    return mcp_error_set(err, MCP_EINVAL, "protocol must be auto or a "
                         "revision luamcp speaks (2026-07-28, 2025-11-25, "
                         "2025-06-18, 2025-03-26, 2024-11-05)");
  return 0;
}

const char *
mcp_client_era(const mcp_client_t *c)
{
  if (c->session.version[0] == '\0')
    return NULL;
  return c->session.stateless ? "modern" : "legacy";
}

const char *
mcp_client_version(const mcp_client_t *c)
{
  return c->session.version;
}

unsigned
mcp_client_session(const mcp_client_t *c)
{
  return c->number;
}

/* What a call gets while the server is down, between restarts. */
static int
down_error(const mcp_client_t *c, mcp_error_t *err)
{
  if (!c->down)
    return mcp_error_set(err, MCP_ECLOSED, "connection closed");
  return mcp_error_set(err, MCP_ECLOSED, "the server stopped (%.150s); it "
                       "is being restarted", c->down_err.msg);
}

/* Set-up is watched, over a transport whose sessions expire: its value
 * is kept once the server accepts it. Returns the watcher (whose
 * callbacks go in *o) or NULL when the request sets nothing up; err is
 * set when it cannot watch. */
static setup_req_t *
watch(mcp_client_t *c, const char *method, const mcp_rpc_req_opts_t *opts,
      mcp_rpc_done_cb cb, void *data, mcp_rpc_req_opts_t *o, int *failed)
{
  setup_kind_t kind = c->sessions || c->restart != NULL ? setup_kind(method)
                                                       : SETUP_NONE;
  setup_req_t *r;

  *failed = 0;
  if (kind == SETUP_NONE)
    return NULL;
  r = calloc(1, sizeof *r);
  if (r == NULL) {
    *failed = 1;
    return NULL;
  }
  memset(o, 0, sizeof *o);
  if (opts != NULL)
    *o = *opts;
  r->c = c;
  r->kind = kind;
  r->cb = cb;
  r->raw = o->on_raw_result;
  r->data = data;
  if (o->on_raw_result != NULL)
    o->on_raw_result = setup_raw;
  return r;
}

/* After a watched request went out (rc 0, its id) or failed to. */
static int
watched(mcp_client_t *c, setup_req_t *r, int rc, uint64_t id,
        uint64_t *id_out)
{
  if (rc != 0) {
    free(r);
    return rc;
  }
  r->value = setup_value(c, id, r->kind);
  if (id_out != NULL)
    *id_out = id;
  return 0;
}

int
mcp_client_request(mcp_client_t *c, const char *method, const cJSON *params,
                   const mcp_rpc_req_opts_t *opts, mcp_rpc_done_cb cb,
                   void *data, uint64_t *id_out, mcp_error_t *err)
{
  return mcp_client_request_with(c, method,
                                 params != NULL ? mcp_jsonrpc_write_cjson
                                                : NULL,
                                 (void *) params, opts, cb, data, id_out, err);
}

int
mcp_client_request_with(mcp_client_t *c, const char *method,
                        mcp_jsonrpc_params_cb write_params, void *params_ud,
                        const mcp_rpc_req_opts_t *opts, mcp_rpc_done_cb cb,
                        void *data, uint64_t *id_out, mcp_error_t *err)
{
  mcp_rpc_req_opts_t o;
  setup_req_t *r;
  uint64_t id = 0;
  int failed, rc;

  if (c->down || c->rpc == NULL)
    return down_error(c, err);
  r = watch(c, method, opts, cb, data, &o, &failed);
  if (failed)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  if (r == NULL)
    return mcp_rpc_request_with(c->rpc, method, write_params, params_ud,
                                opts, cb, data, id_out, err);
  rc = mcp_rpc_request_with(c->rpc, method, write_params, params_ud, &o,
                            setup_done, r, &id, err);
  return watched(c, r, rc, id, id_out);
}

int
mcp_client_cancel(mcp_client_t *c, uint64_t id, const char *reason)
{
  if (c->down || c->rpc == NULL)
    return MCP_EINVAL;
  return mcp_rpc_cancel(c->rpc, id, reason);
}

int
mcp_client_notify(mcp_client_t *c, const char *method, const cJSON *params,
                  mcp_error_t *err)
{
  if (c->down || c->rpc == NULL)
    return down_error(c, err);
  return mcp_rpc_notify(c->rpc, method, params, err);
}

int
mcp_client_respond(mcp_client_t *c, const cJSON *id, const cJSON *result,
                   mcp_error_t *err)
{
  if (c->down || c->rpc == NULL)
    return down_error(c, err);
  return mcp_rpc_respond(c->rpc, id, result, err);
}

int
mcp_client_respond_error(mcp_client_t *c, const cJSON *id, int code,
                         const char *message, const cJSON *data,
                         mcp_error_t *err)
{
  if (c->down || c->rpc == NULL)
    return down_error(c, err);
  return mcp_rpc_respond_error(c->rpc, id, code, message, data, err);
}

/* ---- MCP rules ---------------------------------------------------------- */

int
mcp_client_check_tool_result(const mcp_schema_t *schema, const char *text,
                             size_t len, const cJSON *tree, int max_depth,
                             mcp_schema_failure_t *why)
{
  const cJSON *content = NULL;
  cJSON *parsed = NULL;
  int rc;

  memset(why, 0, sizeof *why);
  if (text != NULL) {
    mcp_json_member_t m[16];
    const mcp_json_member_t *is_error, *sc, *kind;
    size_t n;

    if (mcp_json_members(text, len, max_depth, m, 16, &n) != 0)
      return 0; /* not an object: its decoder refuses it */
    /* An input_required result (2026-07-28) is no tool result yet. */
    kind = mcp_json_member(m, n, "resultType");
    if (kind != NULL && !(kind->value_len == 10 &&
                          memcmp(kind->value, "\"complete\"", 10) == 0))
      return 0;
    is_error = mcp_json_member(m, n, "isError");
    if (is_error != NULL && is_error->value_len == 4 &&
        memcmp(is_error->value, "true", 4) == 0)
      return 0;
    sc = mcp_json_member(m, n, "structuredContent");
    if (sc == NULL && n == 16) {
      /* More members than recorded: look again through a tree. */
      parsed = mcp_json_parse(text, len, max_depth, NULL);
      tree = parsed;
    } else if (sc != NULL) {
      parsed = mcp_json_parse(sc->value, sc->value_len, max_depth, NULL);
      content = parsed;
    }
  }
  if (tree != NULL) {
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(tree, "resultType");

    if (kind != NULL && !(cJSON_IsString(kind) &&
                          strcmp(kind->valuestring, "complete") == 0)) {
      cJSON_Delete(parsed);
      return 0;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tree, "isError"))) {
      cJSON_Delete(parsed);
      return 0;
    }
    content = cJSON_GetObjectItemCaseSensitive(tree, "structuredContent");
  }
  if (content == NULL) {
    cJSON_Delete(parsed);
    snprintf(why->message, sizeof why->message,
             "the tool declares an outputSchema but returned no "
             "structuredContent");
    return MCP_ESCHEMA;
  }
  rc = mcp_schema_validate(schema, content, why);
  cJSON_Delete(parsed);
  return rc;
}

/* Closing between two restarts: on_closed comes from the loop. */
static void
close_now(uv_timer_t *t)
{
  closed(t->data);
}

void
mcp_client_close(mcp_client_t *c)
{
  c->closing = 1;
  if (c->timer_inited)
    uv_timer_stop(&c->timer);
  if (c->rpc != NULL)
    mcp_rpc_close(c->rpc);
  else if (arm_timer(c, close_now, 0) != 0)
    closed(c);
}

void
mcp_client_abort(mcp_client_t *c, const mcp_error_t *err)
{
  if (c->rpc == NULL) {
    mcp_client_close(c);
    return;
  }
  c->closing = 1;
  if (c->timer_inited)
    uv_timer_stop(&c->timer);
  mcp_rpc_abort(c->rpc, err);
}

int
mcp_client_is_open(const mcp_client_t *c)
{
  return c->rpc != NULL && !c->down && mcp_rpc_is_open(c->rpc);
}

size_t
mcp_client_pending(const mcp_client_t *c)
{
  return c->rpc != NULL ? mcp_rpc_pending_count(c->rpc) : 0;
}

size_t
mcp_client_diagnostics(const mcp_client_t *c, char *out, size_t cap)
{
  size_t n;

  if (c->down_tail == NULL || cap == 0)
    return c->rpc != NULL ? mcp_rpc_diagnostics(c->rpc, out, cap) : 0;
  n = strlen(c->down_tail);   /* the dead server's, until the next */
  if (n > cap - 1)
    n = cap - 1;
  memcpy(out, c->down_tail, n);
  out[n] = '\0';
  return n;
}
