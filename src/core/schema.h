/*
 * schema.h - JSON Schema validation of cJSON values (draft 2020-12 and
 * draft-07).
 *
 * A schema is compiled once: its documents are indexed ($id, $anchor,
 * $dynamicAnchor), every $ref is resolved to a compiled subschema (remote
 * documents come from the resolver callback), keyword shapes are checked
 * and patterns are compiled. A compiled schema is immutable and can be
 * used for any number of validations, from several threads at once.
 *
 * Dialect: draft 2020-12 unless the root's "$schema" names draft-07 (or
 * draft-06/-04, which are validated with draft-07 rules). A "$schema" that
 * names another metaschema is fetched with the resolver to read its
 * "$vocabulary"; an unknown required vocabulary is a compile error.
 * "format" is an annotation only and never fails validation. Patterns use
 * the ECMA-262 subset described in schema_regex.c (no lookaround or
 * backreferences; \p{} only for letters, case and digits).
 *
 * Ownership: mcp_schema_compile copies the schema; the caller keeps its
 * own. A resolver returns a new document (or NULL), which the compiler
 * takes over and frees. mcp_schema_free releases everything.
 */
#ifndef MCP_SCHEMA_H
#define MCP_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "error.h"

#define MCP_SCHEMA_DEFAULT_MAX_DEPTH 64
#define MCP_SCHEMA_DEFAULT_MAX_NODES 65536u
/* About 0.1 to 0.3 s of a worst case on today's machines: validation work
 * grows with the schema times the instance (a pattern's program times the
 * string, uniqueItems' pairs), and both come from a server. */
#define MCP_SCHEMA_DEFAULT_MAX_STEPS 50000000u

typedef struct mcp_schema_s mcp_schema_t;

typedef struct mcp_schema_opts_s {
  int max_depth;      /* nested subschema evaluations on one path; 0 means
                         MCP_SCHEMA_DEFAULT_MAX_DEPTH */
  size_t max_nodes;   /* subschemas compiled in all documents; 0 means
                         MCP_SCHEMA_DEFAULT_MAX_NODES */
  size_t max_steps;   /* work one validation may do (subschemas applied,
                         regex steps, values compared, members looked
                         up); 0 means MCP_SCHEMA_DEFAULT_MAX_STEPS */
  /* Returns the document for an absolute URI without fragment (a remote
   * $ref or a custom metaschema), or NULL if unknown. The returned value
   * belongs to the compiler, which frees it with cJSON_Delete. Called only
   * during mcp_schema_compile. NULL: no remote documents. */
  cJSON *(*resolve)(void *ud, const char *uri);
  void *resolve_ud;   /* passed to resolve as is */
} mcp_schema_opts_t;

/* Where validation failed: the first failing keyword on the failing path.
 * Strings are always NUL-terminated and truncated to fit. */
typedef struct mcp_schema_failure_s {
  char instance_path[256]; /* JSON pointer, "" for root */
  char keyword[32];        /* "type", "required", "anyOf", "false"... */
  char schema_path[256];   /* JSON pointer of the keyword along the
                              evaluation path ($ref included) */
  char message[256];       /* one line of human text */
} mcp_schema_failure_t;

/* Compiles schema (object or boolean) into *out, which the caller frees
 * with mcp_schema_free. opts may be NULL. Returns 0, MCP_EINVAL for an
 * invalid schema or an unresolvable reference, MCP_ETOOBIG when the schema
 * has more than max_nodes subschemas or is nested too deeply, or
 * MCP_ENOMEM; err (may be NULL) says what and where. */
int mcp_schema_compile(const cJSON *schema, const mcp_schema_opts_t *opts,
                       mcp_schema_t **out, mcp_error_t *err);

/* Validates instance. Returns 0 when valid, MCP_ESCHEMA when not (why, if
 * not NULL, describes the failure), MCP_ETOOBIG when evaluation nests
 * deeper than max_depth (a deep instance or a reference loop) or needs
 * more than max_steps (why says which), or MCP_ENOMEM. Does not modify s
 * or instance. */
int mcp_schema_validate(const mcp_schema_t *s, const cJSON *instance,
                        mcp_schema_failure_t *why);

/* Frees s and everything it owns; NULL is ignored. */
void mcp_schema_free(mcp_schema_t *s);

#endif
