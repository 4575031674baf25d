/*
 * challenge.c - the WWW-Authenticate parser (see challenge.h).
 *
 *   challenge   = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param  = token BWS "=" BWS ( token / quoted-string )
 *   token68     = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" )
 *                 *"="
 * Challenges and parameters share one comma-separated list: after a
 * comma, a token followed by "=" is a parameter of the current
 * challenge, any other token starts the next challenge.
 */
#include "auth/challenge.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct parser_s {
  const char *s;
  size_t len, pos;
  mcp_auth_challenges_t *out;
  mcp_error_t *err;
} parser_t;

static int
is_tchar(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || (c != 0 && strchr("!#$%&'*+-.^_`|~", c));
}

static int
is_t68char(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || (c != 0 && strchr("-._~+/", c));
}

static int
at_end(const parser_t *p)
{
  return p->pos >= p->len;
}

static unsigned char
peek(const parser_t *p)
{
  return at_end(p) ? 0 : (unsigned char) p->s[p->pos];
}

static void
skip_ows(parser_t *p)
{
  while (!at_end(p) && (peek(p) == ' ' || peek(p) == '\t'))
    p->pos++;
}

static int
syntax(parser_t *p, const char *expected)
{
  return mcp_error_set(p->err, MCP_EPROTO, "WWW-Authenticate: %s expected "
                       "at byte %zu", expected, p->pos);
}

static char *
copy(const char *s, size_t n)
{
  char *d = malloc(n + 1);

  if (d != NULL) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

/* A token at pos: its length (0 when there is none). */
static size_t
token_len(const parser_t *p, size_t pos)
{
  size_t n = 0;

  while (pos + n < p->len && is_tchar((unsigned char) p->s[pos + n]))
    n++;
  return n;
}

/* A quoted-string at pos (the opening quote) into *out, unescaped. */
static int
quoted(parser_t *p, char **out)
{
  size_t start = ++p->pos, n = 0;
  char *v;

  /* Measure, checking every byte, then copy. */
  while (!at_end(p) && peek(p) != '"') {
    unsigned char c = peek(p);

    if (c == '\\') {
      p->pos++;
      if (at_end(p))
        break;
      c = peek(p);
    }
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      return syntax(p, "a visible character in the quoted string");
    p->pos++;
    n++;
  }
  if (at_end(p))
    return syntax(p, "the closing quote");
  v = malloc(n + 1);
  if (v == NULL)
    return mcp_error_set(p->err, MCP_ENOMEM, NULL);
  n = 0;
  while (start < p->pos) {
    if (p->s[start] == '\\')
      start++;
    v[n++] = p->s[start++];
  }
  v[n] = '\0';
  p->pos++;                       /* the closing quote */
  *out = v;
  return 0;
}

static mcp_auth_challenge_t *
current(parser_t *p)
{
  return &p->out->v[p->out->n - 1];
}

static int
add_param(parser_t *p, size_t name_at, size_t name_len)
{
  mcp_auth_challenge_t *ch = current(p);
  mcp_auth_param_t *params;
  char *value = NULL;
  size_t n;
  int rc;

  if (ch->nparams == MCP_AUTH_MAX_PARAMS)
    return mcp_error_set(p->err, MCP_ETOOBIG, "WWW-Authenticate: more "
                         "than %d parameters", MCP_AUTH_MAX_PARAMS);
  skip_ows(p);                    /* BWS "=" BWS, "=" checked by caller */
  p->pos++;
  skip_ows(p);
  if (peek(p) == '"') {
    rc = quoted(p, &value);
    if (rc != 0)
      return rc;
  } else {
    n = token_len(p, p->pos);
    if (n == 0)
      return syntax(p, "a token or a quoted string");
    value = copy(p->s + p->pos, n);
    p->pos += n;
    if (value == NULL)
      return mcp_error_set(p->err, MCP_ENOMEM, NULL);
  }
  params = realloc(ch->params, (ch->nparams + 1) * sizeof *params);
  if (params == NULL) {
    free(value);
    return mcp_error_set(p->err, MCP_ENOMEM, NULL);
  }
  ch->params = params;
  params[ch->nparams].name = copy(p->s + name_at, name_len);
  params[ch->nparams].value = value;
  if (params[ch->nparams].name == NULL) {
    free(value);
    return mcp_error_set(p->err, MCP_ENOMEM, NULL);
  }
  ch->nparams++;
  return 0;
}

static int
add_challenge(parser_t *p, size_t at, size_t n)
{
  mcp_auth_challenge_t *v;

  if (p->out->n == MCP_AUTH_MAX_CHALLENGES)
    return mcp_error_set(p->err, MCP_ETOOBIG, "WWW-Authenticate: more "
                         "than %d challenges", MCP_AUTH_MAX_CHALLENGES);
  v = realloc(p->out->v, (p->out->n + 1) * sizeof *v);
  if (v == NULL)
    return mcp_error_set(p->err, MCP_ENOMEM, NULL);
  p->out->v = v;
  memset(&v[p->out->n], 0, sizeof *v);
  v[p->out->n].scheme = copy(p->s + at, n);
  p->out->n++;
  if (v[p->out->n - 1].scheme == NULL)
    return mcp_error_set(p->err, MCP_ENOMEM, NULL);
  return 0;
}

/* A token68 right after the scheme: its length, or 0 when what follows
 * is not one (but auth-params, or nothing). */
static size_t
token68_len(const parser_t *p)
{
  size_t n = 0, end;

  while (p->pos + n < p->len && is_t68char((unsigned char) p->s[p->pos + n]))
    n++;
  if (n == 0)
    return 0;
  while (p->pos + n < p->len && p->s[p->pos + n] == '=')
    n++;
  end = p->pos + n;
  while (end < p->len && (p->s[end] == ' ' || p->s[end] == '\t'))
    end++;
  return end == p->len || p->s[end] == ',' ? n : 0;
}

static int
parse(parser_t *p)
{
  size_t n, at, after;
  int rc;

  for (;;) {
    /* Empty list elements and whitespace between elements. */
    while (!at_end(p) && (peek(p) == ',' || peek(p) == ' ' ||
                          peek(p) == '\t'))
      p->pos++;
    if (at_end(p))
      return 0;
    at = p->pos;
    n = token_len(p, at);
    if (n == 0)
      return syntax(p, "an authentication scheme");
    after = at + n;
    while (after < p->len && (p->s[after] == ' ' || p->s[after] == '\t'))
      after++;
    if (p->out->n > 0 && after < p->len && p->s[after] == '=') {
      /* name=value after a comma: a parameter of the current one. */
      p->pos = after;
      rc = add_param(p, at, n);
    } else {
      rc = add_challenge(p, at, n);
      p->pos = at + n;
      if (rc == 0 && !at_end(p) && peek(p) != ',') {
        if (peek(p) != ' ')
          return syntax(p, "a space after the scheme");
        skip_ows(p);
        n = token68_len(p);
        if (n > 0) {
          current(p)->token68 = copy(p->s + p->pos, n);
          p->pos += n;
          if (current(p)->token68 == NULL)
            return mcp_error_set(p->err, MCP_ENOMEM, NULL);
        } else if (!at_end(p) && peek(p) != ',') {
          at = p->pos;
          n = token_len(p, at);
          if (n == 0)
            return syntax(p, "a parameter name");
          p->pos = at + n;
          skip_ows(p);
          if (peek(p) != '=')
            return syntax(p, "'='");
          rc = add_param(p, at, n);
        }
      }
    }
    if (rc != 0)
      return rc;
    skip_ows(p);
    if (!at_end(p) && peek(p) != ',')
      return syntax(p, "',' or the end");
  }
}

int
mcp_auth_challenges_parse(const char *text, size_t len,
                          mcp_auth_challenges_t *out, mcp_error_t *err)
{
  parser_t p;
  size_t i;
  int rc;

  memset(out, 0, sizeof *out);
  if (len > MCP_AUTH_MAX_CHALLENGE_TEXT)
    return mcp_error_set(err, MCP_ETOOBIG, "WWW-Authenticate: longer than "
                         "%d bytes", MCP_AUTH_MAX_CHALLENGE_TEXT);
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char) text[i];

    if ((c < 0x20 && c != '\t') || c == 0x7f)
      return mcp_error_set(err, MCP_EPROTO, "WWW-Authenticate: a control "
                           "byte at byte %zu", i);
  }
  p.s = text;
  p.len = len;
  p.pos = 0;
  p.out = out;
  p.err = err;
  rc = parse(&p);
  if (rc != 0)
    mcp_auth_challenges_free(out);
  return rc;
}

void
mcp_auth_challenges_free(mcp_auth_challenges_t *c)
{
  size_t i, j;

  for (i = 0; i < c->n; i++) {
    for (j = 0; j < c->v[i].nparams; j++) {
      free(c->v[i].params[j].name);
      free(c->v[i].params[j].value);
    }
    free(c->v[i].params);
    free(c->v[i].scheme);
    free(c->v[i].token68);
  }
  free(c->v);
  memset(c, 0, sizeof *c);
}

const mcp_auth_challenge_t *
mcp_auth_challenges_find(const mcp_auth_challenges_t *c, const char *scheme)
{
  size_t i;

  for (i = 0; i < c->n; i++)
    if (c->v[i].scheme != NULL && strcasecmp(c->v[i].scheme, scheme) == 0)
      return &c->v[i];
  return NULL;
}

const char *
mcp_auth_challenge_param(const mcp_auth_challenge_t *ch, const char *name)
{
  size_t i;

  for (i = 0; i < ch->nparams; i++)
    if (strcasecmp(ch->params[i].name, name) == 0)
      return ch->params[i].value;
  return NULL;
}

static int
take(char **slot, const mcp_auth_challenge_t *ch, const char *name)
{
  const char *v = mcp_auth_challenge_param(ch, name);

  *slot = NULL;
  if (v == NULL)
    return 0;
  *slot = copy(v, strlen(v));
  return *slot == NULL ? MCP_ENOMEM : 0;
}

int
mcp_auth_bearer_parse(const char *text, size_t len, mcp_auth_bearer_t *out,
                      mcp_error_t *err)
{
  mcp_auth_challenges_t all;
  const mcp_auth_challenge_t *ch;
  int rc;

  memset(out, 0, sizeof *out);
  rc = mcp_auth_challenges_parse(text, len, &all, err);
  if (rc != 0)
    return rc;
  ch = mcp_auth_challenges_find(&all, "Bearer");
  /* A resource server that binds tokens (RFC 9449 section 7.1) says
   * DPoP, with the same parameters. */
  if (ch == NULL)
    ch = mcp_auth_challenges_find(&all, "DPoP");
  if (ch == NULL) {
    mcp_auth_challenges_free(&all);
    return mcp_error_set(err, MCP_ENOENT, "WWW-Authenticate: no Bearer "
                         "or DPoP challenge");
  }
  if (take(&out->resource_metadata, ch, "resource_metadata") != 0 ||
      take(&out->scope, ch, "scope") != 0 ||
      take(&out->error, ch, "error") != 0 ||
      take(&out->error_description, ch, "error_description") != 0) {
    mcp_auth_bearer_free(out);
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  mcp_auth_challenges_free(&all);
  return rc;
}

void
mcp_auth_bearer_free(mcp_auth_bearer_t *b)
{
  free(b->resource_metadata);
  free(b->scope);
  free(b->error);
  free(b->error_description);
  memset(b, 0, sizeof *b);
}
