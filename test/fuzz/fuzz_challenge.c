/*
 * fuzz_challenge.c - libFuzzer harness for the WWW-Authenticate parser
 * (src/core/auth/challenge.c), whose input is a header a server sends
 * with its 401 or 403.
 *
 * Input: the header value, copied into a buffer of exactly its size (no
 * NUL after it). Oracle besides the sanitizers: a success has at most the
 * limits' challenges and parameters, every string is NUL-terminated,
 * non-empty where the grammar says so, without control bytes other than
 * the tab a quoted string may hold; lookups agree with the lists; a
 * failure leaves nothing behind; the Bearer reading agrees with the
 * general one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth/challenge.h"
#include "fuzz.h"

static void
check_text(const char *s, int may_be_empty)
{
  const unsigned char *p;

  FUZZ_CHECK(s != NULL);
  FUZZ_CHECK(may_be_empty || s[0] != '\0');
  for (p = (const unsigned char *) s; *p; p++)
    FUZZ_CHECK(*p >= 0x20 || *p == '\t');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  mcp_auth_challenges_t c;
  mcp_auth_bearer_t b;
  mcp_error_t err;
  char *text = malloc(size > 0 ? size : 1);
  size_t i, j;
  int rc, brc;

  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  rc = mcp_auth_challenges_parse(text, size, &c, &err);
  if (rc != 0) {
    FUZZ_CHECK(rc == MCP_EPROTO || rc == MCP_ETOOBIG);
    FUZZ_CHECK(c.n == 0 && c.v == NULL);
  } else {
    FUZZ_CHECK(c.n <= MCP_AUTH_MAX_CHALLENGES);
    for (i = 0; i < c.n; i++) {
      const mcp_auth_challenge_t *ch = &c.v[i];

      check_text(ch->scheme, 0);
      if (ch->token68 != NULL) {
        check_text(ch->token68, 0);
        FUZZ_CHECK(ch->nparams == 0 || i + 1 <= c.n);
      }
      FUZZ_CHECK(ch->nparams <= MCP_AUTH_MAX_PARAMS);
      for (j = 0; j < ch->nparams; j++) {
        const char *v;

        check_text(ch->params[j].name, 0);
        check_text(ch->params[j].value, 1);
        v = mcp_auth_challenge_param(ch, ch->params[j].name);
        FUZZ_CHECK(v != NULL);
      }
      FUZZ_CHECK(mcp_auth_challenges_find(&c, ch->scheme) != NULL);
    }
  }
  brc = mcp_auth_bearer_parse(text, size, &b, &err);
  if (rc != 0) {
    FUZZ_CHECK(brc == rc);
  } else {
    const mcp_auth_challenge_t *bearer = mcp_auth_challenges_find(&c,
                                                                  "Bearer");

    /* Without a Bearer challenge, a DPoP one (RFC 9449 section 7.1). */
    if (bearer == NULL)
      bearer = mcp_auth_challenges_find(&c, "DPoP");

    FUZZ_CHECK((brc == MCP_ENOENT) == (bearer == NULL));
    if (bearer != NULL) {
      const char *scope = mcp_auth_challenge_param(bearer, "scope");

      FUZZ_CHECK((scope == NULL) == (b.scope == NULL));
      FUZZ_CHECK(scope == NULL || strcmp(scope, b.scope) == 0);
    }
  }
  mcp_auth_bearer_free(&b);
  mcp_auth_challenges_free(&c);
  free(text);
  return 0;
}
