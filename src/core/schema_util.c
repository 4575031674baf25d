/*
 * schema_util.c - helpers for the JSON Schema compiler and validator: the
 * hash map, RFC 3986 reference resolution, percent-decoding, JSON equality
 * and UTF-8 length.
 *
 * None of these know about schemas; each owns only what it allocates
 * (the map owns its string keys, resolved URIs belong to the caller).
 */
#include "schema_int.h"

#include <stdlib.h>
#include <string.h>

/* --- map ---------------------------------------------------------------- */

static size_t
map_hash(const mcp__map_t *m, const void *key)
{
  size_t h = 1469598103934665603u;

  if (m->strings) {
    const unsigned char *p = key;

    while (*p)
      h = (h ^ *p++) * 1099511628211u;
  } else {
    uintptr_t v = (uintptr_t) key;

    h = (size_t) (v ^ (v >> 17)) * 0x9E3779B97F4A7C15u;
    h ^= h >> 29;
  }
  return h;
}

static int
map_same(const mcp__map_t *m, const void *a, const void *b)
{
  return m->strings ? strcmp(a, b) == 0 : a == b;
}

void
mcp__map_init(mcp__map_t *m, int strings)
{
  memset(m, 0, sizeof *m);
  m->strings = strings;
}

void
mcp__map_free(mcp__map_t *m)
{
  size_t i;

  if (m->strings)
    for (i = 0; i < m->cap; i++)
      free(m->keys[i]);
  free(m->keys);
  free(m->vals);
  m->keys = m->vals = NULL;
  m->cap = m->n = 0;
}

void *
mcp__map_get(const mcp__map_t *m, const void *key)
{
  size_t i;

  if (m->cap == 0)
    return NULL;
  i = map_hash(m, key) & (m->cap - 1);
  while (m->keys[i] != NULL) {
    if (map_same(m, m->keys[i], key))
      return m->vals[i];
    i = (i + 1) & (m->cap - 1);
  }
  return NULL;
}

/* Inserts an owned key known to be absent, without growing. */
static void
map_insert(mcp__map_t *m, void *key, void *val)
{
  size_t i = map_hash(m, key) & (m->cap - 1);

  while (m->keys[i] != NULL)
    i = (i + 1) & (m->cap - 1);
  m->keys[i] = key;
  m->vals[i] = val;
  m->n++;
}

int
mcp__map_put(mcp__map_t *m, const void *key, void *val)
{
  void *k;

  if (mcp__map_get(m, key) != NULL)
    return 0;
  if (m->cap > 0) { /* present with a NULL value (the string pool) */
    size_t i = map_hash(m, key) & (m->cap - 1);

    for (; m->keys[i] != NULL; i = (i + 1) & (m->cap - 1))
      if (map_same(m, m->keys[i], key))
        return 0;
  }
  if ((m->n + 1) * 2 > m->cap) {
    mcp__map_t g = *m;
    size_t i;

    g.cap = m->cap ? m->cap * 2 : 16;
    g.n = 0;
    g.keys = calloc(g.cap, sizeof *g.keys);
    g.vals = calloc(g.cap, sizeof *g.vals);
    if (g.keys == NULL || g.vals == NULL) {
      free(g.keys);
      free(g.vals);
      return MCP_ENOMEM;
    }
    for (i = 0; i < m->cap; i++)
      if (m->keys[i] != NULL)
        map_insert(&g, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = g;
  }
  if (m->strings) {
    k = malloc(strlen(key) + 1);
    if (k == NULL)
      return MCP_ENOMEM;
    strcpy(k, key);
  } else {
    k = (void *) (uintptr_t) key;
  }
  map_insert(m, k, val);
  return 0;
}

const char *
mcp__map_intern(mcp__map_t *m, const char *key)
{
  size_t i;

  if (mcp__map_get(m, key) == NULL && mcp__map_put(m, key, NULL) < 0)
    return NULL;
  i = map_hash(m, key) & (m->cap - 1);
  while (strcmp(m->keys[i], key) != 0)
    i = (i + 1) & (m->cap - 1);
  return m->keys[i];
}

/* --- URIs --------------------------------------------------------------- */

/* A URI reference split into its five components; absent parts have
 * len -1 (an empty authority or query is not the same as none). */
typedef struct uri_part_s {
  const char *p;
  long len;
} uri_part_t;

typedef struct uri_s {
  uri_part_t scheme, auth, path, query, frag;
} uri_t;

static void
uri_parse(const char *s, uri_t *u)
{
  const char *p = s, *q;

  memset(u, 0, sizeof *u);
  u->scheme.len = u->auth.len = u->query.len = u->frag.len = -1;
  /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
  q = p;
  if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) {
    while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
           (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.')
      q++;
    if (*q == ':') {
      u->scheme.p = p;
      u->scheme.len = q - p;
      p = q + 1;
    }
  }
  if (p[0] == '/' && p[1] == '/') {
    p += 2;
    q = p + strcspn(p, "/?#");
    u->auth.p = p;
    u->auth.len = q - p;
    p = q;
  }
  q = p + strcspn(p, "?#");
  u->path.p = p;
  u->path.len = q - p;
  p = q;
  if (*p == '?') {
    p++;
    q = p + strcspn(p, "#");
    u->query.p = p;
    u->query.len = q - p;
    p = q;
  }
  if (*p == '#') {
    p++;
    u->frag.p = p;
    u->frag.len = (long) strlen(p);
  }
}

/* Removes "." and ".." segments (RFC 3986 5.2.4) from the len bytes at
 * path, writing the result to out (at least len + 1 bytes). */
static void
remove_dots(const char *path, size_t len, char *out)
{
  char *in = malloc(len + 1), *p;
  size_t olen = 0;

  if (in == NULL) { /* keep the path as it is */
    memcpy(out, path, len);
    out[len] = '\0';
    return;
  }
  memcpy(in, path, len);
  in[len] = '\0';
  p = in;
  while (*p) {
    if (strncmp(p, "../", 3) == 0) {
      p += 3;
    } else if (strncmp(p, "./", 2) == 0) {
      p += 2;
    } else if (strncmp(p, "/./", 3) == 0) {
      p += 2;
    } else if (strcmp(p, "/.") == 0) {
      p[1] = '\0';
    } else if (strncmp(p, "/../", 4) == 0 || strcmp(p, "/..") == 0) {
      if (p[3] == '\0') { /* "/.." becomes "/" */
        p[2] = '/';
        p += 2;
      } else {
        p += 3;
      }
      while (olen > 0 && out[olen - 1] != '/')
        olen--;
      if (olen > 0)
        olen--;
    } else if (strcmp(p, ".") == 0 || strcmp(p, "..") == 0) {
      p += strlen(p);
    } else {
      size_t seg = 1; /* p[0], a '/' or not, starts the segment */

      while (p[seg] != '\0' && p[seg] != '/')
        seg++;
      memcpy(out + olen, p, seg);
      olen += seg;
      p += seg;
    }
  }
  out[olen] = '\0';
  free(in);
}

static void
put_part(char **w, const char *prefix, uri_part_t part, const char *suffix)
{
  if (part.len < 0)
    return;
  if (prefix) {
    strcpy(*w, prefix);
    *w += strlen(prefix);
  }
  memcpy(*w, part.p, (size_t) part.len);
  *w += part.len;
  if (suffix) {
    strcpy(*w, suffix);
    *w += strlen(suffix);
  }
}

char *
mcp__uri_resolve(const char *base, const char *ref)
{
  uri_t b, r, t;
  char *merged = NULL, *path, *out, *w;
  size_t cap;

  uri_parse(base, &b);
  uri_parse(ref, &r);
  memset(&t, 0, sizeof t);
  cap = strlen(base) + strlen(ref) + 16;
  path = malloc(cap);
  out = malloc(cap);
  if (path == NULL || out == NULL)
    goto error;
  t.frag = r.frag;
  if (r.scheme.len >= 0) {
    t.scheme = r.scheme;
    t.auth = r.auth;
    remove_dots(r.path.p, (size_t) r.path.len, path);
    t.query = r.query;
  } else {
    t.scheme = b.scheme;
    if (r.auth.len >= 0) {
      t.auth = r.auth;
      remove_dots(r.path.p, (size_t) r.path.len, path);
      t.query = r.query;
    } else {
      t.auth = b.auth;
      if (r.path.len == 0) {
        memcpy(path, b.path.p, (size_t) b.path.len);
        path[b.path.len] = '\0';
        t.query = r.query.len >= 0 ? r.query : b.query;
      } else {
        if (r.path.p[0] == '/') {
          remove_dots(r.path.p, (size_t) r.path.len, path);
        } else {
          const char *slash = NULL;
          long i;
          size_t keep = 0;

          merged = malloc(cap);
          if (merged == NULL)
            goto error;
          if (b.auth.len >= 0 && b.path.len == 0) {
            merged[0] = '/';
            keep = 1;
          } else {
            for (i = b.path.len - 1; i >= 0; i--)
              if (b.path.p[i] == '/') {
                slash = b.path.p + i;
                break;
              }
            if (slash != NULL) {
              keep = (size_t) (slash - b.path.p) + 1;
              memcpy(merged, b.path.p, keep);
            }
          }
          memcpy(merged + keep, r.path.p, (size_t) r.path.len);
          merged[keep + (size_t) r.path.len] = '\0';
          remove_dots(merged, strlen(merged), path);
        }
        t.query = r.query;
      }
    }
  }
  w = out;
  put_part(&w, NULL, t.scheme, ":");
  put_part(&w, "//", t.auth, NULL);
  strcpy(w, path);
  w += strlen(path);
  put_part(&w, "?", t.query, NULL);
  put_part(&w, "#", t.frag, NULL);
  *w = '\0';
  free(merged);
  free(path);
  return out;

error:
  free(merged);
  free(path);
  free(out);
  return NULL;
}

void
mcp__pct_decode(char *s)
{
  char *w = s;

  while (*s) {
    int hi, lo;

    if (s[0] == '%' && s[1] && s[2]) {
      hi = (s[1] >= '0' && s[1] <= '9')   ? s[1] - '0'
           : (s[1] >= 'a' && s[1] <= 'f') ? s[1] - 'a' + 10
           : (s[1] >= 'A' && s[1] <= 'F') ? s[1] - 'A' + 10
                                          : -1;
      lo = (s[2] >= '0' && s[2] <= '9')   ? s[2] - '0'
           : (s[2] >= 'a' && s[2] <= 'f') ? s[2] - 'a' + 10
           : (s[2] >= 'A' && s[2] <= 'F') ? s[2] - 'A' + 10
                                          : -1;
      if (hi >= 0 && lo >= 0) {
        *w++ = (char) (hi * 16 + lo);
        s += 3;
        continue;
      }
    }
    *w++ = *s++;
  }
  *w = '\0';
}

/* --- JSON --------------------------------------------------------------- */

int
mcp__json_equal(const cJSON *a, const cJSON *b, int depth, size_t *steps)
{
  int ta = a->type & 0xFF, tb = b->type & 0xFF;
  const cJSON *x, *y;

  if (depth > 512 || *steps == 0)
    return MCP_ETOOBIG;
  (*steps)--;
  if (ta != tb)
    return 0;
  switch (ta) {
  case cJSON_Number:
    return a->valuedouble == b->valuedouble;
  case cJSON_String:
  case cJSON_Raw:
    return strcmp(a->valuestring, b->valuestring) == 0;
  case cJSON_Array:
    x = a->child;
    y = b->child;
    while (x != NULL && y != NULL) {
      int r = mcp__json_equal(x, y, depth + 1, steps);

      if (r != 1)
        return r;
      x = x->next;
      y = y->next;
    }
    return x == NULL && y == NULL;
  case cJSON_Object: {
    size_t size = (size_t) cJSON_GetArraySize(b);

    if ((size_t) cJSON_GetArraySize(a) != size)
      return 0;
    for (x = a->child; x != NULL; x = x->next) {
      int r;

      /* Each look-up walks b's members. */
      if (*steps < size)
        return MCP_ETOOBIG;
      *steps -= size;
      y = cJSON_GetObjectItemCaseSensitive(b, x->string);
      if (y == NULL)
        return 0;
      r = mcp__json_equal(x, y, depth + 1, steps);
      if (r != 1)
        return r;
    }
    return 1;
  }
  default:
    return 1; /* null, true, false: the type says it all */
  }
}

size_t
mcp__utf8_length(const char *s)
{
  size_t n = 0;

  for (; *s; s++)
    if (((unsigned char) *s & 0xC0) != 0x80)
      n++;
  return n;
}
