/*
 * schema.c - compiling JSON Schemas: dialects and vocabularies, the index
 * of $id/$anchor/$dynamicAnchor, keyword shape checks, regular expressions,
 * and the resolution of $ref/$dynamicRef (fetching remote documents
 * through the caller's resolver).
 *
 * Validation itself is in schema_validate.c. The compiled schema owns a
 * copy of the caller's document, the resolver's documents, every node and
 * every string it points to; nothing is shared with the caller.
 */
#include "schema_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Schema nesting the compiler follows before giving up (ETOOBIG). */
#define SCHEMA_MAX_NESTING 512
/* Instructions of all a schema's compiled patterns (16 bytes each). */
#define SCHEMA_MAX_REGEX_SIZE 1000000u

/* How a keyword's value must look. */
typedef enum {
  SH_SCHEMA,     /* one subschema */
  SH_SCHEMAS,    /* non-empty array of subschemas */
  SH_SCHEMAMAP,  /* object whose values are subschemas */
  SH_NUMBER,
  SH_POSNUMBER,  /* number > 0 */
  SH_COUNT,      /* non-negative integer */
  SH_BOOL,
  SH_STRING,
  SH_TYPE,
  SH_ARRAY,
  SH_ANY,
  SH_STRINGS,    /* array of unique strings */
  SH_DEPREQ,     /* object whose values are arrays of strings */
  SH_ITEMS7,     /* draft-07 items: a subschema or an array of them */
  SH_DEPS7       /* draft-07 dependencies: subschemas or string arrays */
} shape_t;

#define D7 0x1u
#define D2020 0x2u

typedef struct kwdef_s {
  const char *name;
  unsigned drafts; /* D7 | D2020 */
  unsigned vocab;  /* VOC_*, 0 for core */
  shape_t shape;
} kwdef_t;

/* Indexed by mcp__kw_t; draft-07 "items" is told apart by shape. */
static const kwdef_t kwdefs[KW__COUNT] = {
  {"$ref", D7 | D2020, 0, SH_STRING},
  {"$dynamicRef", D2020, 0, SH_STRING},
  {"type", D7 | D2020, VOC_VALIDATION, SH_TYPE},
  {"enum", D7 | D2020, VOC_VALIDATION, SH_ARRAY},
  {"const", D7 | D2020, VOC_VALIDATION, SH_ANY},
  {"multipleOf", D7 | D2020, VOC_VALIDATION, SH_POSNUMBER},
  {"maximum", D7 | D2020, VOC_VALIDATION, SH_NUMBER},
  {"exclusiveMaximum", D7 | D2020, VOC_VALIDATION, SH_NUMBER},
  {"minimum", D7 | D2020, VOC_VALIDATION, SH_NUMBER},
  {"exclusiveMinimum", D7 | D2020, VOC_VALIDATION, SH_NUMBER},
  {"maxLength", D7 | D2020, VOC_VALIDATION, SH_COUNT},
  {"minLength", D7 | D2020, VOC_VALIDATION, SH_COUNT},
  {"pattern", D7 | D2020, VOC_VALIDATION, SH_STRING},
  {"maxItems", D7 | D2020, VOC_VALIDATION, SH_COUNT},
  {"minItems", D7 | D2020, VOC_VALIDATION, SH_COUNT},
  {"uniqueItems", D7 | D2020, VOC_VALIDATION, SH_BOOL},
  {"maxContains", D2020, VOC_VALIDATION, SH_COUNT},
  {"minContains", D2020, VOC_VALIDATION, SH_COUNT},
  {"maxProperties", D7 | D2020, VOC_VALIDATION, SH_COUNT},
  {"minProperties", D7 | D2020, VOC_VALIDATION, SH_COUNT},
  {"required", D7 | D2020, VOC_VALIDATION, SH_STRINGS},
  {"dependentRequired", D2020, VOC_VALIDATION, SH_DEPREQ},
  {"dependentSchemas", D2020, VOC_APPLICATOR, SH_SCHEMAMAP},
  {"dependencies", D7, VOC_APPLICATOR, SH_DEPS7},
  {"properties", D7 | D2020, VOC_APPLICATOR, SH_SCHEMAMAP},
  {"patternProperties", D7 | D2020, VOC_APPLICATOR, SH_SCHEMAMAP},
  {"additionalProperties", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"propertyNames", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"prefixItems", D2020, VOC_APPLICATOR, SH_SCHEMAS},
  {"items", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"additionalItems", D7, VOC_APPLICATOR, SH_SCHEMA},
  {"contains", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"allOf", D7 | D2020, VOC_APPLICATOR, SH_SCHEMAS},
  {"anyOf", D7 | D2020, VOC_APPLICATOR, SH_SCHEMAS},
  {"oneOf", D7 | D2020, VOC_APPLICATOR, SH_SCHEMAS},
  {"not", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"if", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"then", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"else", D7 | D2020, VOC_APPLICATOR, SH_SCHEMA},
  {"unevaluatedItems", D2020, VOC_UNEVALUATED, SH_SCHEMA},
  {"unevaluatedProperties", D2020, VOC_UNEVALUATED, SH_SCHEMA},
};

/* Compiler state, alive during mcp_schema_compile only. */
typedef struct cctx_s {
  mcp_schema_t *s;
  size_t max_nodes;
  cJSON *(*resolve)(void *ud, const char *uri);
  void *resolve_ud;
  mcp__map_t tried;      /* URIs already asked of the resolver */
  snode_t **pending;     /* nodes whose references are unresolved */
  size_t npending, cappending;
  size_t regex_size;     /* instructions of every pattern compiled */
  mcp_error_t *err;
} cctx_t;

static int walk(cctx_t *c, const cJSON *j, const char *base, snode_t *res,
                int draft, unsigned vocab, int depth, snode_t **out);

const char *
mcp__schema_intern(mcp_schema_t *s, const char *str, size_t len)
{
  char *tmp = malloc(len + 1);
  const char *got;

  if (tmp == NULL)
    return NULL;
  memcpy(tmp, str, len);
  tmp[len] = '\0';
  got = mcp__map_intern(&s->strings, tmp);
  free(tmp);
  return got;
}

static int
nomem(cctx_t *c)
{
  return mcp_error_set(c->err, MCP_ENOMEM, "out of memory compiling schema");
}

/* Splits uri at '#': returns the pooled part before it and sets *frag to
 * a malloc'd, percent-decoded fragment ("" when there is none). */
static const char *
split_uri(cctx_t *c, const char *uri, char **frag)
{
  const char *hash = strchr(uri, '#');
  size_t n = hash ? (size_t) (hash - uri) : strlen(uri);
  const char *doc = mcp__schema_intern(c->s, uri, n);
  const char *f = hash ? hash + 1 : "";

  *frag = malloc(strlen(f) + 1);
  if (doc == NULL || *frag == NULL) {
    free(*frag);
    *frag = NULL;
    return NULL;
  }
  strcpy(*frag, f);
  mcp__pct_decode(*frag);
  return doc;
}

static int
add_anchor(cctx_t *c, const char *base, const char *name, snode_t *n)
{
  size_t lb = strlen(base), ln = strlen(name);
  char *key = malloc(lb + ln + 2);
  int rc;

  if (key == NULL)
    return nomem(c);
  memcpy(key, base, lb);
  key[lb] = '#';
  memcpy(key + lb + 1, name, ln + 1);
  rc = mcp__map_put(&c->s->anchors, key, n);
  free(key);
  return rc < 0 ? nomem(c) : 0;
}

static int
valid_anchor(const char *a)
{
  /* Plain names: a letter or "_", then letters, digits, "-_.:". */
  if (!((*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z') || *a == '_'))
    return 0;
  for (a++; *a; a++)
    if (!((*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z') ||
          (*a >= '0' && *a <= '9') || *a == '-' || *a == '_' || *a == '.' ||
          *a == ':'))
      return 0;
  return 1;
}

/* Strips a trailing empty fragment ("...schema#") for comparisons. */
static int
uri_is(const char *uri, const char *want)
{
  size_t n = strlen(want);

  return strncmp(uri, want, n) == 0 && (uri[n] == '\0' ||
                                        (uri[n] == '#' && uri[n + 1] == '\0'));
}

/* Sets the dialect named by a "$schema" value. */
static int
dialect(cctx_t *c, const char *uri, int *draft, unsigned *vocab)
{
  static const char *const d7[] = {
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "https://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
    "https://json-schema.org/draft-04/schema",
  };
  static const char *const d2020[] = {
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft/2019-09/schema",
  };
  static const struct {
    const char *uri;
    unsigned bit;
  } vocabs[] = {
    {"https://json-schema.org/draft/2020-12/vocab/core", 0},
    {"https://json-schema.org/draft/2020-12/vocab/applicator",
     VOC_APPLICATOR},
    {"https://json-schema.org/draft/2020-12/vocab/unevaluated",
     VOC_UNEVALUATED},
    {"https://json-schema.org/draft/2020-12/vocab/validation",
     VOC_VALIDATION},
    {"https://json-schema.org/draft/2020-12/vocab/meta-data", 0},
    {"https://json-schema.org/draft/2020-12/vocab/format-annotation", 0},
    {"https://json-schema.org/draft/2020-12/vocab/content", 0},
  };
  size_t i, k;
  cJSON *meta;
  const cJSON *voc, *v;
  char *doc;

  for (i = 0; i < sizeof d7 / sizeof d7[0]; i++)
    if (uri_is(uri, d7[i])) {
      *draft = 7;
      *vocab = VOC_ALL;
      return 0;
    }
  for (i = 0; i < sizeof d2020 / sizeof d2020[0]; i++)
    if (uri_is(uri, d2020[i])) {
      *draft = 2020;
      *vocab = VOC_ALL;
      return 0;
    }
  /* A custom metaschema: its $vocabulary says which keywords apply. When
   * it cannot be fetched, fall back to the full 2020-12 dialect. */
  *draft = 2020;
  *vocab = VOC_ALL;
  if (c->resolve == NULL)
    return 0;
  doc = malloc(strlen(uri) + 1);
  if (doc == NULL)
    return nomem(c);
  strcpy(doc, uri);
  doc[strcspn(doc, "#")] = '\0';
  meta = c->resolve(c->resolve_ud, doc);
  free(doc);
  if (meta == NULL)
    return 0;
  voc = cJSON_GetObjectItemCaseSensitive(meta, "$vocabulary");
  if (cJSON_IsObject(voc)) {
    *vocab = 0;
    for (v = voc->child; v != NULL; v = v->next) {
      for (k = 0; k < sizeof vocabs / sizeof vocabs[0]; k++)
        if (strcmp(v->string, vocabs[k].uri) == 0)
          break;
      if (k < sizeof vocabs / sizeof vocabs[0])
        *vocab |= vocabs[k].bit;
      else if (cJSON_IsTrue(v)) {
        mcp_error_set(c->err, MCP_EINVAL,
                      "metaschema %.80s requires unknown vocabulary %.80s",
                      uri, v->string);
        cJSON_Delete(meta);
        return MCP_EINVAL;
      }
    }
  }
  cJSON_Delete(meta);
  return 0;
}

static int
add_pending(cctx_t *c, snode_t *n)
{
  if (c->npending == c->cappending) {
    size_t cap = c->cappending ? c->cappending * 2 : 16;
    snode_t **np = realloc(c->pending, cap * sizeof *np);

    if (np == NULL)
      return nomem(c);
    c->pending = np;
    c->cappending = cap;
  }
  c->pending[c->npending++] = n;
  return 0;
}

static int
is_count(const cJSON *v)
{
  return cJSON_IsNumber(v) && v->valuedouble >= 0 &&
         v->valuedouble == floor(v->valuedouble) && isfinite(v->valuedouble);
}

static int
bad(cctx_t *c, const snode_t *n, const char *kw, const char *why)
{
  return mcp_error_set(c->err, MCP_EINVAL, "invalid schema at %.100s: "
                       "\"%s\" %s", n->base[0] ? n->base : "#", kw, why);
}

static int
parse_type(cctx_t *c, snode_t *n, const cJSON *v)
{
  static const struct {
    const char *name;
    unsigned bit;
  } names[] = {
    {"null", TY_NULL},     {"boolean", TY_BOOLEAN}, {"object", TY_OBJECT},
    {"array", TY_ARRAY},   {"number", TY_NUMBER},   {"string", TY_STRING},
    {"integer", TY_INTEGER},
  };
  const cJSON *one = cJSON_IsArray(v) ? v->child : v;
  size_t i;

  if (!cJSON_IsArray(v) && !cJSON_IsString(v))
    return bad(c, n, "type", "must be a string or an array of strings");
  for (; one != NULL; one = cJSON_IsArray(v) ? one->next : NULL) {
    if (!cJSON_IsString(one))
      return bad(c, n, "type", "must name types with strings");
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strcmp(one->valuestring, names[i].name) == 0)
        break;
    if (i == sizeof names / sizeof names[0])
      return bad(c, n, "type", "names an unknown type");
    n->types |= names[i].bit;
  }
  return 0;
}

static int
compile_regex(cctx_t *c, snode_t *n, const char *kw, const char *pattern,
              mcp__re_t **out)
{
  char msg[128];
  int rc = mcp__re_compile(pattern, out, msg, sizeof msg);

  if (rc == MCP_ENOMEM)
    return nomem(c);
  if (rc < 0)
    return mcp_error_set(c->err, rc, "invalid schema: \"%s\" /%.60s/: %s",
                         kw, pattern, msg);
  MCP_UNUSED(n);
  /* Each pattern is bounded, but a schema may hold thousands of them:
   * their programs share one bound, in time and memory. */
  c->regex_size += (size_t) mcp__re_size(*out);
  if (c->regex_size > SCHEMA_MAX_REGEX_SIZE)
    return mcp_error_set(c->err, MCP_ETOOBIG, "schema's patterns expand to "
                         "more than %u instructions", SCHEMA_MAX_REGEX_SIZE);
  return 0;
}

/* Checks the shape of keyword k and compiles its subschemas. */
static int
compile_keyword(cctx_t *c, snode_t *n, int k, const cJSON *v, int depth)
{
  const char *kw = kwdefs[k].name;
  shape_t shape = kwdefs[k].shape;
  const cJSON *e;
  snode_t *sub;
  int rc, i;

  if (k == KW_ITEMS && n->draft == 7 && cJSON_IsArray(v))
    shape = SH_ITEMS7;
  switch (shape) {
  case SH_SCHEMA:
    return walk(c, v, n->base, n->res, n->draft, n->vocab, depth, &sub);
  case SH_ITEMS7:
  case SH_SCHEMAS:
    if (!cJSON_IsArray(v) || (shape == SH_SCHEMAS && v->child == NULL))
      return bad(c, n, kw, "must be a non-empty array of schemas");
    for (e = v->child; e != NULL; e = e->next) {
      rc = walk(c, e, n->base, n->res, n->draft, n->vocab, depth, &sub);
      if (rc < 0)
        return rc;
    }
    return 0;
  case SH_SCHEMAMAP:
  case SH_DEPS7:
    if (!cJSON_IsObject(v))
      return bad(c, n, kw, "must be an object");
    for (e = v->child; e != NULL; e = e->next) {
      if (shape == SH_DEPS7 && cJSON_IsArray(e)) {
        const cJSON *s;

        for (s = e->child; s != NULL; s = s->next)
          if (!cJSON_IsString(s))
            return bad(c, n, kw, "must list property names");
        continue;
      }
      rc = walk(c, e, n->base, n->res, n->draft, n->vocab, depth, &sub);
      if (rc < 0)
        return rc;
    }
    if (k == KW_PATTERNPROPS && v->child != NULL) {
      n->nppatterns = cJSON_GetArraySize(v);
      n->ppatterns = calloc((size_t) n->nppatterns, sizeof *n->ppatterns);
      if (n->ppatterns == NULL)
        return nomem(c);
      for (i = 0, e = v->child; e != NULL; e = e->next, i++) {
        rc = compile_regex(c, n, kw, e->string, &n->ppatterns[i]);
        if (rc < 0)
          return rc;
      }
    }
    return 0;
  case SH_NUMBER:
  case SH_POSNUMBER:
    if (!cJSON_IsNumber(v) || (shape == SH_POSNUMBER && !(v->valuedouble > 0)))
      return bad(c, n, kw, shape == SH_NUMBER ? "must be a number"
                                              : "must be a number above 0");
    return 0;
  case SH_COUNT:
    if (!is_count(v))
      return bad(c, n, kw, "must be a non-negative integer");
    return 0;
  case SH_BOOL:
    if (!cJSON_IsBool(v))
      return bad(c, n, kw, "must be a boolean");
    return 0;
  case SH_STRING:
    if (!cJSON_IsString(v))
      return bad(c, n, kw, "must be a string");
    if (k == KW_PATTERN)
      return compile_regex(c, n, kw, v->valuestring, &n->pattern);
    return 0;
  case SH_TYPE:
    return parse_type(c, n, v);
  case SH_ARRAY:
    if (!cJSON_IsArray(v))
      return bad(c, n, kw, "must be an array");
    return 0;
  case SH_ANY:
    return 0;
  case SH_STRINGS:
  case SH_DEPREQ:
    if (shape == SH_DEPREQ) {
      if (!cJSON_IsObject(v))
        return bad(c, n, kw, "must be an object");
      for (e = v->child; e != NULL; e = e->next) {
        const cJSON *s;

        if (!cJSON_IsArray(e))
          return bad(c, n, kw, "must map names to arrays of strings");
        for (s = e->child; s != NULL; s = s->next)
          if (!cJSON_IsString(s))
            return bad(c, n, kw, "must map names to arrays of strings");
      }
      return 0;
    }
    if (!cJSON_IsArray(v))
      return bad(c, n, kw, "must be an array of strings");
    for (e = v->child; e != NULL; e = e->next)
      if (!cJSON_IsString(e))
        return bad(c, n, kw, "must be an array of strings");
    return 0;
  }
  return 0;
}

/* Handles $id, $anchor and $dynamicAnchor of an object schema n. */
static int
identify(cctx_t *c, snode_t *n, int has_ref)
{
  const cJSON *j = n->json;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "$id");
  const cJSON *a;
  int rc;

  if (id != NULL && !(n->draft == 7 && has_ref)) {
    char *full, *frag = NULL;
    const char *doc;

    if (!cJSON_IsString(id))
      return bad(c, n, "$id", "must be a string");
    if (n->draft == 7 && id->valuestring[0] == '#') {
      rc = add_anchor(c, n->base, id->valuestring + 1, n);
      if (rc < 0)
        return rc;
    } else {
      full = mcp__uri_resolve(n->base, id->valuestring);
      if (full == NULL)
        return nomem(c);
      doc = split_uri(c, full, &frag);
      free(full);
      if (doc == NULL)
        return nomem(c);
      if (frag[0] != '\0' && n->draft != 7) {
        free(frag);
        return bad(c, n, "$id", "must not contain a fragment");
      }
      n->base = doc;
      n->res = n;
      rc = mcp__map_put(&c->s->uris, doc, n);
      if (rc == 0 && frag[0] != '\0')
        rc = add_anchor(c, doc, frag, n);
      free(frag);
      if (rc < 0)
        return rc == MCP_ENOMEM ? nomem(c) : rc;
    }
  }
  if (n->res == NULL) { /* a document root */
    n->res = n;
    if (mcp__map_put(&c->s->uris, n->base, n) < 0)
      return nomem(c);
  }
  if (n->draft == 7)
    return 0;
  a = cJSON_GetObjectItemCaseSensitive(j, "$anchor");
  if (a != NULL) {
    if (!cJSON_IsString(a) || !valid_anchor(a->valuestring))
      return bad(c, n, "$anchor", "must be a plain name");
    rc = add_anchor(c, n->base, a->valuestring, n);
    if (rc < 0)
      return rc;
  }
  a = cJSON_GetObjectItemCaseSensitive(j, "$dynamicAnchor");
  if (a != NULL) {
    mcp__dyn_t *d;

    if (!cJSON_IsString(a) || !valid_anchor(a->valuestring))
      return bad(c, n, "$dynamicAnchor", "must be a plain name");
    rc = add_anchor(c, n->base, a->valuestring, n);
    if (rc < 0)
      return rc;
    d = calloc(1, sizeof *d);
    if (d == NULL)
      return nomem(c);
    d->name = mcp__schema_intern(c->s, a->valuestring,
                                 strlen(a->valuestring));
    if (d->name == NULL) {
      free(d);
      return nomem(c);
    }
    d->node = n;
    d->next = n->res->dyn;
    n->res->dyn = d;
  }
  return 0;
}

static int
walk(cctx_t *c, const cJSON *j, const char *base, snode_t *res, int draft,
     unsigned vocab, int depth, snode_t **out)
{
  mcp_schema_t *s = c->s;
  snode_t *n;
  const cJSON *m, *sch;
  int rc, k, has_ref;

  *out = mcp__map_get(&s->nodes, j);
  if (*out != NULL)
    return 0;
  if (depth > SCHEMA_MAX_NESTING)
    return mcp_error_set(c->err, MCP_ETOOBIG, "schema nested more than %d "
                         "levels deep", SCHEMA_MAX_NESTING);
  if (!cJSON_IsObject(j) && !cJSON_IsBool(j))
    return mcp_error_set(c->err, MCP_EINVAL, "invalid schema under %.100s: "
                         "a schema must be an object or a boolean",
                         base[0] ? base : "#");
  if (s->nnodes >= c->max_nodes)
    return mcp_error_set(c->err, MCP_ETOOBIG, "schema has more than %zu "
                         "subschemas", c->max_nodes);
  n = calloc(1, sizeof *n);
  if (n == NULL)
    return nomem(c);
  n->next = s->all;
  s->all = n;
  s->nnodes++;
  if (mcp__map_put(&s->nodes, j, n) < 0)
    return nomem(c);
  n->json = j;
  n->base = base;
  n->res = res;
  n->draft = draft;
  n->vocab = vocab;
  *out = n;
  if (cJSON_IsBool(j)) {
    n->boolean = cJSON_IsTrue(j);
    if (n->res == NULL) {
      n->res = n;
      if (mcp__map_put(&s->uris, base, n) < 0)
        return nomem(c);
    }
    return 0;
  }
  n->boolean = -1;
  sch = cJSON_GetObjectItemCaseSensitive(j, "$schema");
  if (sch != NULL) {
    if (!cJSON_IsString(sch))
      return bad(c, n, "$schema", "must be a string");
    rc = dialect(c, sch->valuestring, &n->draft, &n->vocab);
    if (rc < 0)
      return rc;
  }
  has_ref = cJSON_GetObjectItemCaseSensitive(j, "$ref") != NULL;
  rc = identify(c, n, has_ref);
  if (rc < 0)
    return rc;
  for (m = j->child; m != NULL; m = m->next) {
    unsigned want = n->draft == 7 ? D7 : D2020;

    for (k = 0; k < KW__COUNT; k++)
      if (strcmp(m->string, kwdefs[k].name) == 0)
        break;
    if (k == KW__COUNT || !(kwdefs[k].drafts & want))
      continue;
    if (kwdefs[k].vocab != 0 && !(kwdefs[k].vocab & n->vocab))
      continue;
    if (n->draft == 7 && has_ref && k != KW_REF)
      continue; /* draft-07: $ref overrides its siblings */
    if (n->kw[k] == NULL)
      n->kw[k] = m;
  }
  for (k = 0; k < KW__COUNT; k++) {
    if (n->kw[k] == NULL)
      continue;
    rc = compile_keyword(c, n, k, n->kw[k], depth + 1);
    if (rc < 0)
      return rc;
  }
  /* Definitions are indexed even next to a draft-07 $ref, so that
   * references into them find compiled nodes with their identifiers. */
  m = cJSON_GetObjectItemCaseSensitive(j, n->draft == 7 ? "definitions"
                                                       : "$defs");
  if (m != NULL) {
    snode_t *sub;

    if (!cJSON_IsObject(m))
      return bad(c, n, m->string, "must be an object");
    for (m = m->child; m != NULL; m = m->next) {
      rc = walk(c, m, n->base, n->res, n->draft, n->vocab, depth + 1, &sub);
      if (rc < 0)
        return rc;
    }
  }
  n->has_uneval = n->kw[KW_UNEVALITEMS] != NULL ||
                  n->kw[KW_UNEVALPROPS] != NULL;
  if (n->kw[KW_REF] != NULL) {
    n->ref_uri = mcp__uri_resolve(n->base, n->kw[KW_REF]->valuestring);
    if (n->ref_uri == NULL)
      return nomem(c);
  }
  if (n->kw[KW_DYNREF] != NULL) {
    n->dynref_uri = mcp__uri_resolve(n->base,
                                     n->kw[KW_DYNREF]->valuestring);
    if (n->dynref_uri == NULL)
      return nomem(c);
  }
  if (n->ref_uri != NULL || n->dynref_uri != NULL)
    return add_pending(c, n);
  return 0;
}

/* Fetches the document at uri (no fragment) and compiles it. Returns its
 * root, or NULL with *rc set (0 when the resolver does not know it). */
static snode_t *
load_remote(cctx_t *c, const char *uri, const snode_t *from, int *rc)
{
  cJSON *doc, **nr;
  snode_t *root;

  *rc = 0;
  if (c->resolve == NULL || mcp__map_get(&c->tried, uri) != NULL)
    return NULL;
  if (mcp__map_put(&c->tried, uri, (void *) 1) < 0) {
    *rc = nomem(c);
    return NULL;
  }
  doc = c->resolve(c->resolve_ud, uri);
  if (doc == NULL)
    return NULL;
  nr = realloc(c->s->remotes, (c->s->nremotes + 1) * sizeof *nr);
  if (nr == NULL) {
    cJSON_Delete(doc);
    *rc = nomem(c);
    return NULL;
  }
  c->s->remotes = nr;
  nr[c->s->nremotes++] = doc;
  *rc = walk(c, doc, uri, NULL, from->draft, VOC_ALL, 0, &root);
  if (*rc < 0)
    return NULL;
  /* The document may name itself differently; its retrieval URI works too. */
  if (mcp__map_put(&c->s->uris, uri, root) < 0) {
    *rc = nomem(c);
    return NULL;
  }
  return root;
}

/* Follows a JSON pointer from the resource root; compiles the target if
 * nothing did yet (a reference into an unknown keyword, say). Returns 0
 * with *out set, POINTER_MISSING when nothing is there, or the error that
 * compiling the target met (*out is then NULL: a half-compiled node must
 * never be a reference's target). */
#define POINTER_MISSING 1

static int
follow_pointer(cctx_t *c, snode_t *root, char *ptr, snode_t **out)
{
  const cJSON *cur = root->json;
  snode_t *near = root, *got;
  char *tok = ptr;
  int rc;

  while (*tok == '/') {
    char *end = strchr(tok + 1, '/'), *r, *w;
    const cJSON *next = NULL;

    if (end != NULL)
      *end = '\0';
    for (r = w = tok + 1; *r; r++, w++) {
      if (r[0] == '~' && r[1] == '1') {
        *w = '/';
        r++;
      } else if (r[0] == '~' && r[1] == '0') {
        *w = '~';
        r++;
      } else {
        *w = *r;
      }
    }
    *w = '\0';
    if (cJSON_IsObject(cur)) {
      next = cJSON_GetObjectItemCaseSensitive(cur, tok + 1);
    } else if (cJSON_IsArray(cur)) {
      char *e;
      long idx = strtol(tok + 1, &e, 10);

      if (*e == '\0' && tok[1] != '\0' && idx >= 0)
        next = cJSON_GetArrayItem(cur, (int) idx);
    }
    if (next == NULL)
      return POINTER_MISSING;
    cur = next;
    got = mcp__map_get(&c->s->nodes, cur);
    if (got != NULL)
      near = got;
    if (end == NULL)
      break;
    *end = '/';
    tok = end;
  }
  got = mcp__map_get(&c->s->nodes, cur);
  if (got != NULL) {
    *out = got;
    return 0;
  }
  rc = walk(c, cur, near->base, near->res, near->draft, near->vocab, 0,
            out);
  if (rc < 0)
    *out = NULL;
  return rc;
}

/* Resolves an absolute reference to a compiled node. */
static int
lookup(cctx_t *c, const snode_t *from, const char *kw, const char *uri,
       snode_t **out)
{
  char *frag = NULL, *key;
  const char *doc = split_uri(c, uri, &frag);
  snode_t *root;
  int rc = 0, pass;

  *out = NULL;
  if (doc == NULL)
    return nomem(c);
  for (pass = 0; pass < 2 && *out == NULL && rc == 0; pass++) {
    if (pass == 1 && load_remote(c, doc, from, &rc) == NULL)
      break;
    if (frag[0] == '\0' || frag[0] == '/') {
      root = mcp__map_get(&c->s->uris, doc);
      if (root == NULL)
        continue;
      if (frag[0] == '\0') {
        *out = root;
      } else {
        rc = follow_pointer(c, root, frag, out);
        if (rc != 0)
          break;
      }
    } else {
      key = malloc(strlen(doc) + strlen(frag) + 2);
      if (key == NULL) {
        rc = nomem(c);
        break;
      }
      strcpy(key, doc);
      strcat(key, "#");
      strcat(key, frag);
      *out = mcp__map_get(&c->s->anchors, key);
      free(key);
    }
  }
  free(frag);
  if (rc < 0) {
    *out = NULL;
    return rc;
  }
  if (*out == NULL)
    return mcp_error_set(c->err, MCP_EINVAL, "cannot resolve %s %.200s",
                         kw, uri);
  return 0;
}

static int
resolve_refs(cctx_t *c)
{
  size_t i;
  int rc;

  /* Resolving may load documents that add to the list as it is walked. */
  for (i = 0; i < c->npending; i++) {
    snode_t *n = c->pending[i];

    if (n->ref_uri != NULL) {
      rc = lookup(c, n, "$ref", n->ref_uri, &n->ref);
      if (rc < 0)
        return rc;
    }
    if (n->dynref_uri != NULL) {
      const char *hash = strchr(n->dynref_uri, '#');
      mcp__dyn_t *d;

      rc = lookup(c, n, "$dynamicRef", n->dynref_uri, &n->dynref);
      if (rc < 0)
        return rc;
      /* Dynamic only when the static target is a $dynamicAnchor of that
       * name (the "bookend" of the 2020-12 specification). */
      if (hash != NULL && hash[1] != '\0' && hash[1] != '/')
        for (d = n->dynref->res->dyn; d != NULL; d = d->next)
          if (d->node == n->dynref && strcmp(d->name, hash + 1) == 0)
            n->dynname = d->name;
    }
  }
  return 0;
}

int
mcp_schema_compile(const cJSON *schema, const mcp_schema_opts_t *opts,
                   mcp_schema_t **out, mcp_error_t *err)
{
  mcp_schema_t *s;
  cctx_t c;
  snode_t *n;
  int rc;

  *out = NULL;
  if (schema == NULL)
    return mcp_error_set(err, MCP_EINVAL, "no schema");
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return mcp_error_set(err, MCP_ENOMEM, "out of memory compiling schema");
  mcp__map_init(&s->nodes, 0);
  mcp__map_init(&s->uris, 1);
  mcp__map_init(&s->anchors, 1);
  mcp__map_init(&s->strings, 1);
  memset(&c, 0, sizeof c);
  mcp__map_init(&c.tried, 1);
  c.s = s;
  c.err = err;
  c.max_nodes = MCP_SCHEMA_DEFAULT_MAX_NODES;
  s->max_depth = MCP_SCHEMA_DEFAULT_MAX_DEPTH;
  s->max_steps = MCP_SCHEMA_DEFAULT_MAX_STEPS;
  if (opts != NULL) {
    if (opts->max_nodes > 0)
      c.max_nodes = opts->max_nodes;
    if (opts->max_depth > 0)
      s->max_depth = opts->max_depth;
    if (opts->max_steps > 0)
      s->max_steps = opts->max_steps;
    c.resolve = opts->resolve;
    c.resolve_ud = opts->resolve_ud;
  }
  s->doc = cJSON_Duplicate(schema, 1);
  if (s->doc == NULL) {
    rc = mcp_error_set(err, MCP_ENOMEM, "out of memory copying schema");
    goto error;
  }
  rc = walk(&c, s->doc, "", NULL, 2020, VOC_ALL, 0, &s->root);
  if (rc == 0)
    rc = resolve_refs(&c);
  if (rc < 0)
    goto error;
  for (n = s->all; n != NULL; n = n->next) {
    free(n->ref_uri);
    free(n->dynref_uri);
    n->ref_uri = n->dynref_uri = NULL;
  }
  free(c.pending);
  mcp__map_free(&c.tried);
  *out = s;
  return 0;

error:
  free(c.pending);
  mcp__map_free(&c.tried);
  mcp_schema_free(s);
  return rc;
}

void
mcp_schema_free(mcp_schema_t *s)
{
  snode_t *n, *next;
  size_t i;
  int k;

  if (s == NULL)
    return;
  for (n = s->all; n != NULL; n = next) {
    mcp__dyn_t *d, *dn;

    next = n->next;
    for (d = n->dyn; d != NULL; d = dn) {
      dn = d->next;
      free(d);
    }
    mcp__re_free(n->pattern);
    for (k = 0; k < n->nppatterns; k++)
      mcp__re_free(n->ppatterns[k]);
    free(n->ppatterns);
    free(n->ref_uri);
    free(n->dynref_uri);
    free(n);
  }
  for (i = 0; i < s->nremotes; i++)
    cJSON_Delete(s->remotes[i]);
  free(s->remotes);
  cJSON_Delete(s->doc);
  mcp__map_free(&s->nodes);
  mcp__map_free(&s->uris);
  mcp__map_free(&s->anchors);
  mcp__map_free(&s->strings);
  free(s);
}

int
mcp_schema_validate(const mcp_schema_t *s, const cJSON *instance,
                    mcp_schema_failure_t *why)
{
  if (why != NULL)
    memset(why, 0, sizeof *why);
  if (s == NULL || instance == NULL)
    return MCP_EINVAL;
  return mcp__schema_eval_root(s, instance, why);
}
