/*
 * era_stateless.c - the stateless era (2026-07-28) behind the era seam:
 * no handshake. The server is asked what it is (server/discover), and
 * from then on every request carries the protocol version, the client's
 * capabilities and its info in _meta (rpc's envelope), and over HTTP its
 * routing headers (the transport's set_era).
 *
 * The probe decides the era (the 2026-07-28 checklist, section 1): a
 * DiscoverResult naming 2026-07-28 means stateless; a -32022 naming only
 * versions we do not speak is an error; an answer a server of the
 * handshake era gives (any other error, an HTTP 4xx, silence on stdio)
 * means the session begins with `initialize` on the same endpoint
 * (mcp_era_handshake). An outage (HTTP 5xx, no connection) or a refused
 * authorization is no evidence either way: it is the connect's error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "era.h"
#include "json.h"

#define PROBE_MAX_MS 10000u  /* a silent legacy stdio server costs this */

typedef struct probe_s {
  mcp_session_t *s;
  uint64_t started;            /* loop ms: the probe and the fallback share
                                * one deadline */
  cJSON *capabilities;         /* copies, for the fallback's initialize */
  cJSON *client_info;
  uint64_t timeout_ms;
  mcp_session_ready_cb cb;
  void *data;
  int corrected;               /* the one corrective probe was sent */
  int only;                    /* 2026-07-28 or nothing: no fallback */
} probe_t;

static int send_probe(probe_t *p, mcp_error_t *err);

static void
probe_free(probe_t *p)
{
  cJSON_Delete(p->capabilities);
  cJSON_Delete(p->client_info);
  free(p);
}

/* The probe is over with err: the connect hears of it. */
static void
probe_end(probe_t *p, const mcp_error_t *err)
{
  p->cb(p->data, err, NULL);
  probe_free(p);
}

/* The _meta members of every request: "key":value,... (malloc'd). The
 * stateless era's roots capability has no listChanged, and its tasks are
 * an extension: the 2025-11-25 "tasks" capability is gone. */
static char *
envelope_of(const cJSON *capabilities, const cJSON *client_info)
{
  cJSON *caps = capabilities != NULL ? cJSON_Duplicate(capabilities, 1)
                                     : cJSON_CreateObject();
  cJSON *info = client_info != NULL ? cJSON_Duplicate(client_info, 1)
                                    : cJSON_CreateObject();
  cJSON *roots = cJSON_GetObjectItemCaseSensitive(caps, "roots");
  char *c = NULL, *i = NULL, *out = NULL;
  size_t n;

  if (caps == NULL || info == NULL)
    goto done;
  if (cJSON_IsObject(roots))
    cJSON_DeleteItemFromObjectCaseSensitive(roots, "listChanged");
  cJSON_DeleteItemFromObjectCaseSensitive(caps, "tasks");
  if (client_info == NULL) {
    cJSON_AddStringToObject(info, "name", "luamcp");
    cJSON_AddStringToObject(info, "version", MCP_VERSION);
  }
  c = cJSON_PrintUnformatted(caps);
  i = cJSON_PrintUnformatted(info);
  if (c == NULL || i == NULL)
    goto done;
  n = strlen(c) + strlen(i) + 200;
  out = malloc(n);
  if (out != NULL)
    snprintf(out, n,
             "\"io.modelcontextprotocol/protocolVersion\":\"%s\","
             "\"io.modelcontextprotocol/clientCapabilities\":%s,"
             "\"io.modelcontextprotocol/clientInfo\":%s",
             MCP_STATELESS_VERSION, c, i);
done:
  cJSON_free(c);
  cJSON_free(i);
  cJSON_Delete(caps);
  cJSON_Delete(info);
  return out;
}

/* Whether list (a JSON array of strings) holds version. */
static int
lists(const cJSON *list, const char *version)
{
  const cJSON *v;

  cJSON_ArrayForEach(v, list) {
    if (cJSON_IsString(v) && strcmp(v->valuestring, version) == 0)
      return 1;
  }
  return 0;
}

/* Whether list holds a revision of the handshake era. */
static int
lists_handshake(const cJSON *list)
{
  const cJSON *v;

  cJSON_ArrayForEach(v, list) {
    if (cJSON_IsString(v) && mcp_session_version_supported(v->valuestring))
      return 1;
  }
  return 0;
}

/* The stateless session is on: what the server said, as the handshake
 * era's InitializeResult says it, so that owners read one shape. */
static int
begin_stateless(probe_t *p, const cJSON *result, mcp_error_t *err)
{
  mcp_session_t *s = p->s;
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(
    meta, "io.modelcontextprotocol/serverInfo");
  const cJSON *caps = cJSON_GetObjectItemCaseSensitive(result,
                                                       "capabilities");
  const cJSON *instructions = cJSON_GetObjectItemCaseSensitive(
    result, "instructions");
  cJSON *r = cJSON_CreateObject();

  if (r == NULL ||
      cJSON_AddStringToObject(r, "protocolVersion",
                              MCP_STATELESS_VERSION) == NULL ||
      !cJSON_AddItemToObject(r, "capabilities",
                             cJSON_IsObject(caps) ? cJSON_Duplicate(caps, 1)
                                                  : cJSON_CreateObject()) ||
      !cJSON_AddItemToObject(r, "serverInfo",
                             cJSON_IsObject(info) ? cJSON_Duplicate(info, 1)
                                                  : cJSON_CreateObject()) ||
      (cJSON_IsString(instructions) &&
       cJSON_AddStringToObject(r, "instructions",
                               instructions->valuestring) == NULL) ||
      cJSON_AddStringToObject(r, "era", "modern") == NULL) {
    cJSON_Delete(r);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  snprintf(s->version, sizeof s->version, "%s", MCP_STATELESS_VERSION);
  cJSON_Delete(s->init_result);
  s->init_result = r;
  s->stateless = 1;
  return 0;
}

/* The server is of the handshake era: the stateless ways are undone and
 * the session begins with initialize, on the same endpoint. */
static void
fall_back(probe_t *p)
{
  uint64_t spent = mcp_rpc_now(p->s->rpc) - p->started;
  mcp_error_t err;

  if (p->only) {
    mcp_error_set(&err, MCP_EVERSION, "the server does not speak 2026-07-28 "
                  "(its answer to server/discover is an older server's), "
                  "and the connection asked for 2026-07-28 only");
    probe_end(p, &err);
    return;
  }
  mcp_rpc_set_envelope(p->s->rpc, NULL);
  mcp_rpc_set_era(p->s->rpc, NULL);
  p->s->stateless = 0;
  if (mcp_session_initialize(p->s, p->capabilities, p->client_info,
                             spent < p->timeout_ms ? p->timeout_ms - spent
                                                   : 1,
                             p->cb, p->data, &err) != 0)
    p->cb(p->data, &err, NULL);
  probe_free(p);                /* the handshake has the callback now */
}

/* An error to the probe that a stateless server would not give: the
 * server is of the handshake era (E8, E14, E21). */
static int
handshake_evidence(const mcp_error_t *err, const cJSON *data)
{
  if (err->code == MCP_ERPC)
    return err->rpc_code != MCP_RPC_UNSUPPORTED_VERSION ||
           !lists(cJSON_GetObjectItemCaseSensitive(data, "supported"),
                  MCP_STATELESS_VERSION);
  if (err->code == MCP_EHTTP)
    return err->status >= 400 && err->status <= 499 && err->status != 401 &&
           err->status != 403;
  /* A stdio server that stays silent before initialize. */
  return err->code == MCP_ETIMEDOUT;
}

static void decide(probe_t *p, const mcp_error_t *err, const cJSON *value);

/* rpc hands an error's data over raw (its exact text): read as a tree
 * here, where its members decide the era. */
static void
probed(void *data, const mcp_error_t *err, const cJSON *value)
{
  cJSON *parsed = NULL;

  if (err != NULL && cJSON_IsRaw(value))
    parsed = mcp_json_parse(value->valuestring, strlen(value->valuestring),
                            16, NULL);
  decide(data, err, parsed != NULL ? parsed : value);
  cJSON_Delete(parsed);
}

static void
decide(probe_t *p, const mcp_error_t *err, const cJSON *value)
{
  const cJSON *supported;
  mcp_error_t e;

  if (err == NULL) {
    supported = cJSON_GetObjectItemCaseSensitive(value, "supportedVersions");
    if (!cJSON_IsArray(supported) || cJSON_GetArraySize(supported) == 0) {
      fall_back(p);            /* no DiscoverResult: an older server's reply */
      return;
    }
    if (lists(supported, MCP_STATELESS_VERSION)) {
      if (begin_stateless(p, value, &e) != 0)
        p->cb(p->data, &e, NULL);
      else
        p->cb(p->data, NULL, p->s->init_result);
    } else if (lists_handshake(supported)) {
      fall_back(p);            /* a DiscoverResult of the older era */
      return;
    } else {
      mcp_error_set(&e, MCP_EVERSION, "the server speaks none of the "
                    "revisions luamcp speaks (its server/discover lists "
                    "no 2026-07-28 nor an older one)");
      p->cb(p->data, &e, NULL);
    }
    probe_free(p);
    return;
  }
  if (err->code == MCP_ERPC && err->rpc_code == MCP_RPC_UNSUPPORTED_VERSION) {
    supported = cJSON_GetObjectItemCaseSensitive(value, "supported");
    if (lists(supported, MCP_STATELESS_VERSION)) {
      /* Refused at a version it says it speaks: asked again, once (E4,
       * E22); a second refusal is the connect's error, not a loop. */
      if (!p->corrected) {
        p->corrected = 1;
        if (send_probe(p, &e) == 0)
          return;
      } else {
        mcp_error_set(&e, MCP_EVERSION, "the server refused 2026-07-28 "
                      "twice though it lists it (%.120s)", err->msg);
        e.rpc_code = err->rpc_code;
      }
      probe_end(p, &e);
      return;
    }
    if (!lists(supported, MCP_STATELESS_VERSION) && !lists_handshake(supported)
        && cJSON_GetArraySize(supported) > 0) {
      mcp_error_set(&e, MCP_EVERSION, "the server speaks only revisions "
                    "luamcp does not (%.120s)", err->msg);
      e.rpc_code = err->rpc_code;
      probe_end(p, &e);
      return;
    }
  }
  if (handshake_evidence(err, value)) {
    fall_back(p);
    return;
  }
  probe_end(p, err);
}

/* Sends server/discover, within half the startup time at most: a legacy
 * server that ignores the probe still gets the rest for initialize. The
 * probe is never cancelled (an older server may not expect a cancel of a
 * request it does not know). */
static int
send_probe(probe_t *p, mcp_error_t *err)
{
  mcp_rpc_req_opts_t opts = { 0, 1, NULL, 0, NULL };
  uint64_t spent = mcp_rpc_now(p->s->rpc) - p->started;
  uint64_t left = spent < p->timeout_ms ? p->timeout_ms - spent : 1;

  opts.timeout_ms = p->timeout_ms / 2 < PROBE_MAX_MS ? p->timeout_ms / 2
                                                     : PROBE_MAX_MS;
  if (opts.timeout_ms > left)
    opts.timeout_ms = left;
  if (opts.timeout_ms == 0)
    opts.timeout_ms = 1;
  return mcp_rpc_request(p->s->rpc, "server/discover", NULL, &opts, probed,
                         p, NULL, err);
}

/* Begins a session of whichever era the server speaks (only: the
 * stateless era or none): the probe, then the stateless era or the
 * handshake. */
static int
begin_probing(mcp_session_t *s, const cJSON *capabilities,
              const cJSON *client_info, uint64_t timeout_ms,
              mcp_session_ready_cb cb, void *data, int only,
              mcp_error_t *err)
{
  probe_t *p = calloc(1, sizeof *p);
  char *envelope;
  int rc;

  if (p == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  p->s = s;
  p->only = only;
  p->timeout_ms = timeout_ms;
  p->cb = cb;
  p->data = data;
  p->capabilities = capabilities ? cJSON_Duplicate(capabilities, 1) : NULL;
  p->client_info = client_info ? cJSON_Duplicate(client_info, 1) : NULL;
  envelope = envelope_of(capabilities, client_info);
  if (envelope == NULL || (capabilities && !p->capabilities) ||
      (client_info && !p->client_info)) {
    free(envelope);
    probe_free(p);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  rc = mcp_rpc_set_envelope(s->rpc, envelope);
  free(envelope);
  if (rc != 0) {
    probe_free(p);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  mcp_rpc_set_era(s->rpc, MCP_STATELESS_VERSION);
  p->started = mcp_rpc_now(s->rpc);
  rc = send_probe(p, err);
  if (rc != 0) {
    mcp_rpc_set_envelope(s->rpc, NULL);
    mcp_rpc_set_era(s->rpc, NULL);
    probe_free(p);
  }
  return rc;
}

static int
begin_auto(mcp_session_t *s, const cJSON *capabilities,
           const cJSON *client_info, uint64_t timeout_ms,
           mcp_session_ready_cb cb, void *data, mcp_error_t *err)
{
  return begin_probing(s, capabilities, client_info, timeout_ms, cb, data, 0,
                       err);
}

static int
begin_stateless_only(mcp_session_t *s, const cJSON *capabilities,
                     const cJSON *client_info, uint64_t timeout_ms,
                     mcp_session_ready_cb cb, void *data, mcp_error_t *err)
{
  return begin_probing(s, capabilities, client_info, timeout_ms, cb, data, 1,
                       err);
}

const mcp_era_t mcp_era_auto = { MCP_STATELESS_VERSION, begin_auto };
const mcp_era_t mcp_era_stateless = { MCP_STATELESS_VERSION,
                                      begin_stateless_only };
