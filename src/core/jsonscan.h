/*
 * jsonscan.h - the top-level members of a JSON object, as text slices.
 *
 * One pass over a message finds each top-level key and the raw text of
 * its value, and checks the nesting limit on the way; values are not
 * parsed. This lets the RPC layer route a response and hand its result's
 * text to whoever decodes it, without building a tree first. Strings and
 * brackets are tracked; scalars are not validated here (the decoder of the
 * value does that). No I/O.
 */
#ifndef MCP_JSONSCAN_H
#define MCP_JSONSCAN_H

#include <stddef.h>

typedef struct mcp_json_member_s {
  const char *key;      /* the key's raw text, without quotes */
  size_t key_len;
  const char *value;    /* the value's raw text, without surrounding space */
  size_t value_len;
} mcp_json_member_t;

/* Scans text, which must hold one JSON object. Fills out[0..*n) with at
 * most max members (further members are checked but not recorded) and
 * returns 0; MCP_ETOOBIG when nesting exceeds max_depth; MCP_EJSON when
 * the text is not structurally one object. */
int mcp_json_members(const char *text, size_t len, int max_depth,
                     mcp_json_member_t *out, size_t max, size_t *n);

/* The member with this (escape-free) key, or NULL. */
const mcp_json_member_t *mcp_json_member(const mcp_json_member_t *m,
                                         size_t n, const char *key);

#endif
