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

#include "error.h"

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

/* Checks that text is exactly one JSON value as RFC 8259 defines it,
 * nested at most max_depth deep (at most 1000; 0 means 1000), and that no
 * object key escapes a NUL. Allocates nothing and recurses not. Returns 0,
 * MCP_ETOOBIG (too deep) or MCP_EJSON, with err saying where and why.
 * Stricter than cJSON, which takes control bytes for whitespace and reads
 * keys as C strings: run it on anything from a peer before cJSON. */
int mcp_json_check(const char *text, size_t len, int max_depth,
                   mcp_error_t *err);

/* 1 for the bytes that end the plain run of a JSON string ('"', '\\',
 * control characters), 0 for the others. */
extern const unsigned char mcp__json_string_stop[256];

/* The member with this (escape-free) key, or NULL. */
const mcp_json_member_t *mcp_json_member(const mcp_json_member_t *m,
                                         size_t n, const char *key);

#endif
