/*
 * jsonrpc.h - JSON-RPC 2.0 message classification and encoding.
 *
 * Pure functions over cJSON values: no I/O, no state. Matching responses to
 * requests, timeouts and dispatch live in rpc.c.
 */
#ifndef MCP_JSONRPC_H
#define MCP_JSONRPC_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "error.h"

/* JSON-RPC error codes used by the client. */
#define MCP_RPC_PARSE_ERROR (-32700)
#define MCP_RPC_INVALID_REQUEST (-32600)
#define MCP_RPC_METHOD_NOT_FOUND (-32601)
#define MCP_RPC_INVALID_PARAMS (-32602)
#define MCP_RPC_INTERNAL_ERROR (-32603)
/* MCP: the server does not speak the protocol version asked for. */
#define MCP_RPC_UNSUPPORTED_VERSION (-32022)

typedef enum {
  MCP_MSG_INVALID = 0,
  MCP_MSG_REQUEST,       /* method + id */
  MCP_MSG_NOTIFICATION,  /* method, no id */
  MCP_MSG_RESULT,        /* id + result */
  MCP_MSG_ERROR          /* id (possibly null) + error */
} mcp_msg_kind_t;

/* A view into a classified message; every pointer borrows from it. */
typedef struct mcp_msg_s {
  mcp_msg_kind_t kind;
  const cJSON *id;           /* string or number; NULL if absent or null */
  const char *method;        /* requests and notifications */
  cJSON *params;             /* object or array, or NULL */
  cJSON *result;             /* MCP_MSG_RESULT */
  int error_code;            /* MCP_MSG_ERROR */
  const char *error_message; /* MCP_MSG_ERROR; never NULL there */
  cJSON *error_data;         /* MCP_MSG_ERROR; optional */
  const char *why;           /* MCP_MSG_INVALID: what is wrong, one phrase */
} mcp_msg_t;

/* Classifies msg. Always fills out; returns out->kind. */
mcp_msg_kind_t mcp_jsonrpc_classify(cJSON *msg, mcp_msg_t *out);

/* Returns 0 and sets *out when id is a JSON number holding an integer we
 * could have sent (0 <= id < 2^53); MCP_EINVAL otherwise. A string "7" is
 * not the number 7: ids keep their JSON type. */
int mcp_jsonrpc_id_u64(const cJSON *id, uint64_t *out);

struct mcp_buf_s;

/* Writes a request's params, one JSON value, at the end of b. id is the
 * request's id (also its progress token, when it asks for progress).
 * Returns 0, or an MCP_E* code with err set. */
typedef int (*mcp_jsonrpc_params_cb)(void *ud, uint64_t id,
                                     struct mcp_buf_s *b, mcp_error_t *err);

/* The hot path: appends request id to b, its params written in place by
 * write_params (NULL: no params). Nothing is allocated but b's growth.
 * Returns 0, or an MCP_E* code with err set (b then holds a partial
 * message). */
int mcp_jsonrpc_write_request(struct mcp_buf_s *b, uint64_t id,
                              const char *method,
                              mcp_jsonrpc_params_cb write_params, void *ud,
                              mcp_error_t *err);
/* A params writer for a cJSON value (ud): prints it with cJSON. */
int mcp_jsonrpc_write_cjson(void *ud, uint64_t id, struct mcp_buf_s *b,
                            mcp_error_t *err);

/* Encoders return a newly allocated, unformatted JSON text (free with
 * cJSON_free) or NULL when out of memory. params/result/data are borrowed
 * and may be NULL. */
char *mcp_jsonrpc_request(uint64_t id, const char *method,
                          const cJSON *params);
char *mcp_jsonrpc_notification(const char *method, const cJSON *params);
char *mcp_jsonrpc_result(const cJSON *id, const cJSON *result);
char *mcp_jsonrpc_error(const cJSON *id, int code, const char *message,
                        const cJSON *data);

#endif
