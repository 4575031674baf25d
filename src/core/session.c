/*
 * session.c - the initialize handshake and version negotiation.
 */
#include "session.h"
#include "era.h"

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "json.h"

static const char *const supported_versions[] = {
  MCP_LATEST_VERSION, "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

int
mcp_session_version_supported(const char *version)
{
  size_t i;

  for (i = 0; supported_versions[i] != NULL; i++) {
    if (strcmp(version, supported_versions[i]) == 0)
      return 1;
  }
  return 0;
}

void
mcp_session_init(mcp_session_t *s, mcp_rpc_t *rpc)
{
  memset(s, 0, sizeof *s);
  s->rpc = rpc;
}

void
mcp_session_free(mcp_session_t *s)
{
  cJSON_Delete(s->init_result);
  s->init_result = NULL;
}

static void
on_initialized(void *data, const mcp_error_t *err, const cJSON *result)
{
  mcp_session_t *s = data;
  mcp_session_ready_cb cb = s->cb;
  const char *version;
  mcp_error_t e;

  s->initializing = 0;
  if (err != NULL && err->code == MCP_ERPC &&
      err->rpc_code == MCP_RPC_UNSUPPORTED_VERSION) {
    /* A server of the stateless era (2026-07-28) answers so, on stdio
     * and over HTTP alike. */
    mcp_error_set(&e, MCP_EVERSION, "the server does not speak 2025-11-25 "
                  "or an earlier revision (%.150s); luamcp speaks "
                  "2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05",
                  err->msg);
    e.rpc_code = err->rpc_code;
    cb(s->data, &e, NULL);
    return;
  }
  if (err != NULL) {
    cb(s->data, err, NULL);
    return;
  }
  version = mcp_json_string(result, "protocolVersion");
  if (version == NULL || !mcp_json_object(result, "capabilities") ||
      !mcp_json_object(result, "serverInfo")) {
    mcp_error_set(&e, MCP_EPROTO, "initialize result lacks %s",
                  version == NULL ? "protocolVersion"
                  : !mcp_json_object(result, "capabilities") ? "capabilities"
                                                             : "serverInfo");
    mcp_rpc_close(s->rpc);
    cb(s->data, &e, NULL);
    return;
  }
  if (!mcp_session_version_supported(version)) {
    mcp_error_set(&e, MCP_EVERSION,
                  "server offered protocol version '%.40s'; luamcp speaks "
                  "2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05",
                  version);
    mcp_rpc_close(s->rpc);
    cb(s->data, &e, NULL);
    return;
  }
  snprintf(s->version, sizeof s->version, "%s", version);
  cJSON_Delete(s->init_result);
  s->init_result = cJSON_Duplicate(result, 1);
  if (s->init_result == NULL) {
    mcp_error_set(&e, MCP_ENOMEM, NULL);
    cb(s->data, &e, NULL);
    return;
  }
  /* The transport learns the version first: notifications/initialized
   * already carries MCP-Protocol-Version over HTTP (L15). */
  mcp_rpc_initialized(s->rpc, s->version);
  if (mcp_rpc_notify(s->rpc, "notifications/initialized", NULL, &e) != 0) {
    cb(s->data, &e, NULL);
    return;
  }
  cb(s->data, NULL, s->init_result);
}

/* The capabilities as the handshake era knows them: a copy without the
 * 2026-07-28 tasks extension, which is not defined there (T2); an
 * "extensions" left empty goes too. NULL when out of memory. */
static cJSON *
handshake_capabilities(const cJSON *capabilities)
{
  cJSON *caps = capabilities != NULL ? cJSON_Duplicate(capabilities, 1)
                                     : cJSON_CreateObject();
  cJSON *ext = cJSON_GetObjectItemCaseSensitive(caps, "extensions");

  if (cJSON_IsObject(ext)) {
    cJSON_DeleteItemFromObjectCaseSensitive(ext,
                                            "io.modelcontextprotocol/tasks");
    if (ext->child == NULL)
      cJSON_DeleteItemFromObjectCaseSensitive(caps, "extensions");
  }
  return caps;
}

int
mcp_session_initialize(mcp_session_t *s, const cJSON *capabilities,
                       const cJSON *client_info, uint64_t timeout_ms,
                       mcp_session_ready_cb cb, void *data, mcp_error_t *err)
{
  mcp_rpc_req_opts_t opts = { timeout_ms, 1, NULL, 0, NULL };
  cJSON *params, *info, *caps;
  int rc;

  if (s->initializing)
    return mcp_error_set(err, MCP_EINVAL, "initialize already in progress");
  params = cJSON_CreateObject();
  caps = handshake_capabilities(capabilities);
  if (params == NULL || caps == NULL) {
    cJSON_Delete(params);
    cJSON_Delete(caps);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  cJSON_AddStringToObject(params, "protocolVersion", MCP_LATEST_VERSION);
  cJSON_AddItemToObject(params, "capabilities", caps);
  if (client_info != NULL) {
    cJSON_AddItemReferenceToObject(params, "clientInfo",
                                   (cJSON *) client_info);
  } else {
    info = cJSON_AddObjectToObject(params, "clientInfo");
    cJSON_AddStringToObject(info, "name", "luamcp");
    cJSON_AddStringToObject(info, "version", MCP_VERSION);
  }
  s->cb = cb;
  s->data = data;
  s->initializing = 1;
  rc = mcp_rpc_request(s->rpc, "initialize", params, &opts, on_initialized, s,
                       NULL, err);
  cJSON_Delete(params);
  if (rc != 0)
    s->initializing = 0;
  return rc;
}

const mcp_era_t mcp_era_handshake = { MCP_LATEST_VERSION,
                                      mcp_session_initialize };
