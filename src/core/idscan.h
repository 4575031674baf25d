/*
 * idscan.h - finds the top-level "id" of a JSON-RPC message without
 * keeping the message.
 *
 * When a message is over the size limit we throw its bytes away as they
 * arrive, yet the pending request it answers must still learn that its
 * answer was too big. This scanner walks the bytes once, in constant
 * memory, tracking strings and nesting, and keeps only the raw text of the
 * value of the top-level key "id" (wherever it appears in the object).
 * It performs no I/O and does not validate the JSON.
 */
#ifndef MCP_IDSCAN_H
#define MCP_IDSCAN_H

#include <stddef.h>

typedef struct mcp_idscan_s {
  int depth;          /* nesting depth, outside strings */
  int state;          /* where we are at depth 1; see idscan.c */
  unsigned in_str : 1;
  unsigned esc : 1;
  unsigned key_is_id : 1;
  unsigned done : 1;  /* an id value was captured completely */
  char key[4];        /* the current top-level key, if it is short */
  size_t key_len;
  char id[64];        /* raw JSON text of the id value */
  size_t id_len;
} mcp_idscan_t;

void mcp_idscan_init(mcp_idscan_t *s);
void mcp_idscan_feed(mcp_idscan_t *s, const char *data, size_t len);
/* Returns the raw id text (e.g. `7` or `"abc"`) or NULL if none was seen. */
const char *mcp_idscan_id(const mcp_idscan_t *s, size_t *len);

#endif
