/*
 * schema_validate.c - evaluating a compiled JSON Schema against an
 * instance.
 *
 * Evaluation walks the compiled nodes; it never modifies them. Annotations
 * for unevaluatedItems/unevaluatedProperties are collected only where such
 * a keyword can see them: a node that has one (or whose caller asked for
 * annotations) passes a fresh mark array to each in-place subschema and
 * merges it back only when that subschema passed, so failed branches
 * contribute nothing, as the specification requires.
 *
 * The first failure on the failing path is recorded; failures inside
 * anyOf/oneOf/not/if/contains branches are muted, and those keywords
 * report themselves instead. All state lives in a per-call context.
 *
 * Both the schema and the instance come from a server, and the work grows
 * with their product, so a validation has a budget of steps (max_steps):
 * each subschema applied, each instruction a pattern visits, each value
 * compared and each member looked up costs one. Running out stops the
 * validation with MCP_ETOOBIG, like nesting too deeply.
 */
#include "schema_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_CAP 1024

/* Evaluated members of the current array or object instance. */
typedef struct ann_s {
  int n;            /* members of the instance */
  unsigned char *m; /* m[i] != 0: member i was evaluated */
} ann_t;

typedef struct vctx_s {
  const mcp_schema_t *s;
  int depth;
  const snode_t **scope;    /* dynamic scope: resources, outermost first */
  int nscope;
  char ipath[PATH_CAP];     /* instance location */
  size_t ilen;
  char spath[PATH_CAP];     /* evaluation path */
  size_t slen;
  int mute;                 /* > 0 inside branches expected to fail */
  int have_fail;
  size_t steps;             /* what is left of the budget */
  mcp_schema_failure_t *why;
} vctx_t;

static int eval(vctx_t *c, const snode_t *n, const cJSON *inst, ann_t *ann);

/* --- paths and failures ------------------------------------------------- */

static void
path_put(char *buf, size_t *len, char ch)
{
  if (*len < PATH_CAP - 1)
    buf[*len] = ch;
  (*len)++;
}

static void
path_end(char *buf, size_t len)
{
  buf[len < PATH_CAP - 1 ? len : PATH_CAP - 1] = '\0';
}

/* Appends "/" and tok, escaped as a JSON pointer token; returns the old
 * length for path_pop. */
static size_t
path_push(char *buf, size_t *len, const char *tok)
{
  size_t old = *len;

  path_put(buf, len, '/');
  for (; *tok; tok++) {
    if (*tok == '~') {
      path_put(buf, len, '~');
      path_put(buf, len, '0');
    } else if (*tok == '/') {
      path_put(buf, len, '~');
      path_put(buf, len, '1');
    } else {
      path_put(buf, len, *tok);
    }
  }
  path_end(buf, *len);
  return old;
}

static size_t
path_push_index(char *buf, size_t *len, int i)
{
  char num[16];

  snprintf(num, sizeof num, "%d", i);
  return path_push(buf, len, num);
}

static void
path_pop(char *buf, size_t *len, size_t old)
{
  *len = old;
  path_end(buf, old);
}

#define IPUSH(c, tok) path_push((c)->ipath, &(c)->ilen, (tok))
#define IPUSHI(c, i) path_push_index((c)->ipath, &(c)->ilen, (i))
#define IPOP(c, old) path_pop((c)->ipath, &(c)->ilen, (old))
#define SPUSH(c, tok) path_push((c)->spath, &(c)->slen, (tok))
#define SPUSHI(c, i) path_push_index((c)->spath, &(c)->slen, (i))
#define SPOP(c, old) path_pop((c)->spath, &(c)->slen, (old))

/* Copies a then b into dst, truncating to size - 1 bytes. */
static void
copy2(char *dst, size_t size, const char *a, const char *b)
{
  size_t la = strlen(a), lb = b != NULL ? strlen(b) : 0;

  if (la > size - 1)
    la = size - 1;
  memcpy(dst, a, la);
  if (lb > size - 1 - la)
    lb = size - 1 - la;
  if (lb > 0)
    memcpy(dst + la, b, lb);
  dst[la + lb] = '\0';
}

static void
record(vctx_t *c, const char *kw, int append_kw, const char *fmt, va_list ap)
{
  mcp_schema_failure_t *w = c->why;

  size_t old = c->slen;

  copy2(w->instance_path, sizeof w->instance_path, c->ipath, NULL);
  copy2(w->keyword, sizeof w->keyword, kw, NULL);
  if (append_kw)
    path_push(c->spath, &c->slen, kw);
  copy2(w->schema_path, sizeof w->schema_path, c->spath, NULL);
  path_pop(c->spath, &c->slen, old);
  vsnprintf(w->message, sizeof w->message, fmt, ap);
}

static int
vfail(vctx_t *c, const char *kw, int append_kw, const char *fmt, va_list ap)
{
  if (c->mute > 0 || c->have_fail || c->why == NULL)
    return 1;
  c->have_fail = 1;
  record(c, kw, append_kw, fmt, ap);
  return 1;
}

/* Records the failure of keyword kw at the current locations (if it is the
 * first one outside a muted branch) and returns 1, "invalid". */
static int
fail(vctx_t *c, const char *kw, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int
fail(vctx_t *c, const char *kw, const char *fmt, ...)
{
  va_list ap;
  int r;

  va_start(ap, fmt);
  r = vfail(c, kw, strcmp(kw, "false") != 0, fmt, ap);
  va_end(ap);
  return r;
}

/* The same, when the schema path already ends at the failing subschema
 * (a "false" reached through keyword kw). */
static int
fail_sub(vctx_t *c, const char *kw, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int
fail_sub(vctx_t *c, const char *kw, const char *fmt, ...)
{
  va_list ap;
  int r;

  va_start(ap, fmt);
  r = vfail(c, kw, 0, fmt, ap);
  va_end(ap);
  return r;
}

/* The depth bound is an error, not a failure: it is always recorded,
 * replacing any failure seen so far. */
static int
too_deep(vctx_t *c)
{
  if (c->why != NULL) {
    c->mute = 0;
    c->have_fail = 0;
    fail(c, "$ref", "evaluation nested more than %d subschemas deep",
         c->s->max_depth);
  }
  return MCP_ETOOBIG;
}

/* So is the step budget; kw is the keyword that was at work. */
static int
out_of_steps(vctx_t *c, const char *kw)
{
  if (c->why != NULL) {
    c->mute = 0;
    c->have_fail = 0;
    fail(c, kw, "validation stopped after %zu steps (the schema and the "
         "value need more work than allowed)", c->s->max_steps);
  }
  return MCP_ETOOBIG;
}

/* Spends n steps of the budget: 0, or MCP_ETOOBIG when it runs out. */
static int
spend(vctx_t *c, size_t n, const char *kw)
{
  if (c->steps < n) {
    c->steps = 0;
    return out_of_steps(c, kw);
  }
  c->steps -= n;
  return 0;
}

/* A comparison or a search that returned MCP_ETOOBIG: the budget ran out
 * unless the values nested too deeply. */
static int
stopped(vctx_t *c, int r, const char *kw)
{
  if (r == MCP_ETOOBIG && c->steps == 0)
    return out_of_steps(c, kw);
  return r;
}

/* --- annotations -------------------------------------------------------- */

static int
ann_init(ann_t *a, const cJSON *inst)
{
  a->n = cJSON_GetArraySize(inst);
  a->m = calloc((size_t) a->n + 1, 1);
  return a->m == NULL ? MCP_ENOMEM : 0;
}

static void
ann_merge(ann_t *into, const ann_t *from)
{
  int i;

  for (i = 0; i < into->n && i < from->n; i++)
    into->m[i] |= from->m[i];
}

static void
ann_mark(ann_t *a, int i)
{
  if (a != NULL && i < a->n)
    a->m[i] = 1;
}

/* --- helpers ------------------------------------------------------------ */

static const snode_t *
node_of(const vctx_t *c, const cJSON *j)
{
  return mcp__map_get(&c->s->nodes, j);
}

/* Applies sub to the same instance (an in-place applicator), collecting
 * its annotations into ann when it passes. The schema path gets kw and,
 * if tok is not NULL or idx >= 0, one more token. */
static int
apply(vctx_t *c, const snode_t *sub, const cJSON *inst, ann_t *ann,
      const char *kw, const char *tok, int idx)
{
  size_t old = SPUSH(c, kw);
  int r;

  if (tok != NULL)
    SPUSH(c, tok);
  else if (idx >= 0)
    SPUSHI(c, idx);
  if (ann != NULL && (cJSON_IsArray(inst) || cJSON_IsObject(inst))) {
    ann_t child;

    if (ann_init(&child, inst) < 0) {
      r = MCP_ENOMEM;
    } else {
      r = eval(c, sub, inst, &child);
      if (r == 0)
        ann_merge(ann, &child);
      free(child.m);
    }
  } else {
    r = eval(c, sub, inst, NULL);
  }
  SPOP(c, old);
  return r;
}

/* Applies sub to a member of the instance (key or index names it). */
static int
apply_child(vctx_t *c, const snode_t *sub, const cJSON *child,
            const char *kw, const char *stok, int sidx, const char *key,
            int idx)
{
  size_t sold = SPUSH(c, kw), iold;
  int r;

  if (stok != NULL)
    SPUSH(c, stok);
  else if (sidx >= 0)
    SPUSHI(c, sidx);
  iold = key != NULL ? IPUSH(c, key) : IPUSHI(c, idx);
  if (sub->boolean == 0)
    r = key != NULL
            ? fail_sub(c, kw, "property \"%.100s\" is not allowed", key)
            : fail_sub(c, kw, "item %d is not allowed", idx);
  else
    r = eval(c, sub, child, NULL);
  IPOP(c, iold);
  SPOP(c, sold);
  return r;
}

static const char *
type_name(const cJSON *v)
{
  if (cJSON_IsNull(v))
    return "null";
  if (cJSON_IsBool(v))
    return "boolean";
  if (cJSON_IsNumber(v))
    return "number";
  if (cJSON_IsString(v))
    return "string";
  if (cJSON_IsArray(v))
    return "array";
  return "object";
}

static int
is_integer(const cJSON *v)
{
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
         v->valuedouble == floor(v->valuedouble);
}

static int
type_ok(unsigned types, const cJSON *v)
{
  return ((types & TY_NULL) && cJSON_IsNull(v)) ||
         ((types & TY_BOOLEAN) && cJSON_IsBool(v)) ||
         ((types & TY_OBJECT) && cJSON_IsObject(v)) ||
         ((types & TY_ARRAY) && cJSON_IsArray(v)) ||
         ((types & TY_NUMBER) && cJSON_IsNumber(v)) ||
         ((types & TY_STRING) && cJSON_IsString(v)) ||
         ((types & TY_INTEGER) && is_integer(v));
}

/* --- keyword groups ----------------------------------------------------- */

static int
eval_refs(vctx_t *c, const snode_t *n, const cJSON *inst, ann_t *ann)
{
  int r = 0, i;

  if (n->ref != NULL) {
    r = apply(c, n->ref, inst, ann, "$ref", NULL, -1);
    if (r != 0)
      return r;
  }
  if (n->dynref != NULL) {
    const snode_t *target = n->dynref;

    if (n->dynname != NULL) {
      /* The outermost resource in the dynamic scope that has a
       * $dynamicAnchor of this name wins. */
      for (i = 0; i < c->nscope; i++) {
        const mcp__dyn_t *d;

        for (d = c->scope[i]->dyn; d != NULL; d = d->next)
          if (strcmp(d->name, n->dynname) == 0)
            break;
        if (d != NULL) {
          target = d->node;
          break;
        }
      }
    }
    r = apply(c, target, inst, ann, "$dynamicRef", NULL, -1);
  }
  return r;
}

static int
eval_generic(vctx_t *c, const snode_t *n, const cJSON *inst)
{
  const cJSON *v, *e;
  int r;

  if (n->types != 0 && !type_ok(n->types, inst)) {
    char want[128];
    size_t len = 0;

    want[0] = '\0';
    v = n->kw[KW_TYPE];
    for (e = cJSON_IsArray(v) ? v->child : v; e != NULL && len < 100;
         e = cJSON_IsArray(v) ? e->next : NULL)
      len += (size_t) snprintf(want + len, sizeof want - len, "%s%s",
                               len > 0 ? " or " : "", e->valuestring);
    return fail(c, "type", "expected %s, got %s", want, type_name(inst));
  }
  v = n->kw[KW_ENUM];
  if (v != NULL) {
    for (e = v->child; e != NULL; e = e->next) {
      r = mcp__json_equal(e, inst, 0, &c->steps);
      if (r != 0)
        break;
    }
    if (e == NULL)
      return fail(c, "enum", "value is not one of the allowed values");
    if (r < 0)
      return stopped(c, r, "enum");
  }
  v = n->kw[KW_CONST];
  if (v != NULL) {
    r = mcp__json_equal(v, inst, 0, &c->steps);
    if (r < 0)
      return stopped(c, r, "const");
    if (r == 0)
      return fail(c, "const", "value is not the required constant");
  }
  return 0;
}

static int
eval_number(vctx_t *c, const snode_t *n, const cJSON *inst)
{
  double x = inst->valuedouble;
  const cJSON *v;

  v = n->kw[KW_MULTIPLEOF];
  if (v != NULL) {
    double q = x / v->valuedouble;

    if (!isfinite(q) || fabs(q - nearbyint(q)) > 1e-9 * fmax(1.0, fabs(q)))
      return fail(c, "multipleOf", "%g is not a multiple of %g", x,
                  v->valuedouble);
  }
  v = n->kw[KW_MAXIMUM];
  if (v != NULL && x > v->valuedouble)
    return fail(c, "maximum", "%g is greater than %g", x, v->valuedouble);
  v = n->kw[KW_EXMAXIMUM];
  if (v != NULL && x >= v->valuedouble)
    return fail(c, "exclusiveMaximum", "%g is not less than %g", x,
                v->valuedouble);
  v = n->kw[KW_MINIMUM];
  if (v != NULL && x < v->valuedouble)
    return fail(c, "minimum", "%g is less than %g", x, v->valuedouble);
  v = n->kw[KW_EXMINIMUM];
  if (v != NULL && x <= v->valuedouble)
    return fail(c, "exclusiveMinimum", "%g is not greater than %g", x,
                v->valuedouble);
  return 0;
}

static int
eval_string(vctx_t *c, const snode_t *n, const cJSON *inst)
{
  const char *s = inst->valuestring;
  size_t len = 0;
  int r;

  if (n->kw[KW_MAXLENGTH] != NULL || n->kw[KW_MINLENGTH] != NULL)
    len = mcp__utf8_length(s);
  if (n->kw[KW_MAXLENGTH] != NULL &&
      (double) len > n->kw[KW_MAXLENGTH]->valuedouble)
    return fail(c, "maxLength", "string is longer than %g characters",
                n->kw[KW_MAXLENGTH]->valuedouble);
  if (n->kw[KW_MINLENGTH] != NULL &&
      (double) len < n->kw[KW_MINLENGTH]->valuedouble)
    return fail(c, "minLength", "string is shorter than %g characters",
                n->kw[KW_MINLENGTH]->valuedouble);
  if (n->pattern != NULL) {
    r = mcp__re_search(n->pattern, s, strlen(s), &c->steps);
    if (r < 0)
      return stopped(c, r, "pattern");
    if (r == 0)
      return fail(c, "pattern", "string does not match /%.100s/",
                  n->kw[KW_PATTERN]->valuestring);
  }
  return 0;
}

static int
eval_array(vctx_t *c, const snode_t *n, const cJSON *inst, ann_t *ann)
{
  const cJSON *v, *e, *it;
  int size = cJSON_GetArraySize(inst), i, r, start = 0;

  v = n->kw[KW_MAXITEMS];
  if (v != NULL && size > v->valuedouble)
    return fail(c, "maxItems", "array has more than %g items",
                v->valuedouble);
  v = n->kw[KW_MINITEMS];
  if (v != NULL && size < v->valuedouble)
    return fail(c, "minItems", "array has fewer than %g items",
                v->valuedouble);
  v = n->kw[KW_UNIQUEITEMS];
  if (cJSON_IsTrue(v)) {
    const cJSON *a, *b;
    int ia, ib;

    for (a = inst->child, ia = 0; a != NULL; a = a->next, ia++)
      for (b = a->next, ib = ia + 1; b != NULL; b = b->next, ib++) {
        r = mcp__json_equal(a, b, 0, &c->steps);
        if (r < 0)
          return stopped(c, r, "uniqueItems");
        if (r == 1)
          return fail(c, "uniqueItems", "items %d and %d are equal", ia,
                      ib);
      }
  }
  /* Tuples: prefixItems (2020-12) or an items array (draft-07). */
  v = n->draft == 7 ? (cJSON_IsArray(n->kw[KW_ITEMS]) ? n->kw[KW_ITEMS]
                                                       : NULL)
                    : n->kw[KW_PREFIXITEMS];
  if (v != NULL) {
    const char *kw = n->draft == 7 ? "items" : "prefixItems";

    for (e = v->child, it = inst->child, i = 0; e != NULL && it != NULL;
         e = e->next, it = it->next, i++) {
      r = apply_child(c, node_of(c, e), it, kw, NULL, i, NULL, i);
      if (r != 0)
        return r;
      ann_mark(ann, i);
    }
    start = cJSON_GetArraySize(v);
  }
  /* The rest: items (2020-12), items as one schema or additionalItems
   * after an items array (draft-07). */
  e = NULL;
  if (n->draft == 7) {
    if (n->kw[KW_ITEMS] != NULL && !cJSON_IsArray(n->kw[KW_ITEMS]))
      e = n->kw[KW_ITEMS];
    else if (n->kw[KW_ITEMS] != NULL)
      e = n->kw[KW_ADDITEMS];
  } else {
    e = n->kw[KW_ITEMS];
  }
  if (e != NULL) {
    const snode_t *sub = node_of(c, e);
    const char *kw = e == n->kw[KW_ADDITEMS] ? "additionalItems" : "items";

    for (it = inst->child, i = 0; it != NULL; it = it->next, i++) {
      if (i < start)
        continue;
      r = apply_child(c, sub, it, kw, NULL, -1, NULL, i);
      if (r != 0)
        return r;
      ann_mark(ann, i);
    }
  }
  v = n->kw[KW_CONTAINS];
  if (v != NULL) {
    const snode_t *sub = node_of(c, v);
    double min = 1, max = -1;
    int count = 0;

    if (n->kw[KW_MINCONTAINS] != NULL)
      min = n->kw[KW_MINCONTAINS]->valuedouble;
    if (n->kw[KW_MAXCONTAINS] != NULL)
      max = n->kw[KW_MAXCONTAINS]->valuedouble;
    c->mute++;
    for (it = inst->child, i = 0; it != NULL; it = it->next, i++) {
      r = apply_child(c, sub, it, "contains", NULL, -1, NULL, i);
      if (r < 0) {
        c->mute--;
        return r;
      }
      if (r == 0) {
        count++;
        if (n->draft != 7)
          ann_mark(ann, i);
      }
    }
    c->mute--;
    if (count < min)
      return n->kw[KW_MINCONTAINS] != NULL
                 ? fail(c, "minContains", "fewer than %g items match "
                        "\"contains\"", min)
                 : fail(c, "contains", "no item matches \"contains\"");
    if (max >= 0 && count > max)
      return fail(c, "maxContains", "more than %g items match "
                  "\"contains\"", max);
  }
  return 0;
}

static int
eval_object(vctx_t *c, const snode_t *n, const cJSON *inst, ann_t *ann)
{
  const cJSON *v, *e, *m;
  int size = cJSON_GetArraySize(inst), i, k, r;
  size_t nprops;

  v = n->kw[KW_MAXPROPS];
  if (v != NULL && size > v->valuedouble)
    return fail(c, "maxProperties", "object has more than %g properties",
                v->valuedouble);
  v = n->kw[KW_MINPROPS];
  if (v != NULL && size < v->valuedouble)
    return fail(c, "minProperties", "object has fewer than %g properties",
                v->valuedouble);
  v = n->kw[KW_REQUIRED];
  if (v != NULL)
    for (e = v->child; e != NULL; e = e->next) {
      /* Each look-up walks the instance's members. */
      r = spend(c, (size_t) size, "required");
      if (r != 0)
        return r;
      if (cJSON_GetObjectItemCaseSensitive(inst, e->valuestring) == NULL)
        return fail(c, "required", "property \"%.100s\" is required",
                    e->valuestring);
    }
  v = n->kw[KW_DEPREQUIRED];
  if (v != NULL)
    for (e = v->child; e != NULL; e = e->next) {
      const cJSON *need;

      r = spend(c, (size_t) size, "dependentRequired");
      if (r != 0)
        return r;
      if (cJSON_GetObjectItemCaseSensitive(inst, e->string) == NULL)
        continue;
      for (need = e->child; need != NULL; need = need->next)
        if (cJSON_GetObjectItemCaseSensitive(inst, need->valuestring) ==
            NULL)
          return fail(c, "dependentRequired", "property \"%.60s\" requires "
                      "\"%.60s\"", e->string, need->valuestring);
    }
  v = n->kw[KW_DEPENDENCIES];
  if (v != NULL)
    for (e = v->child; e != NULL; e = e->next) {
      r = spend(c, (size_t) size, "dependencies");
      if (r != 0)
        return r;
      if (cJSON_GetObjectItemCaseSensitive(inst, e->string) == NULL)
        continue;
      if (cJSON_IsArray(e)) {
        const cJSON *need;

        for (need = e->child; need != NULL; need = need->next)
          if (cJSON_GetObjectItemCaseSensitive(inst, need->valuestring) ==
              NULL)
            return fail(c, "dependencies", "property \"%.60s\" requires "
                        "\"%.60s\"", e->string, need->valuestring);
      } else {
        r = apply(c, node_of(c, e), inst, NULL, "dependencies", e->string,
                  -1);
        if (r != 0)
          return r;
      }
    }
  v = n->kw[KW_DEPSCHEMAS];
  if (v != NULL)
    for (e = v->child; e != NULL; e = e->next) {
      r = spend(c, (size_t) size, "dependentSchemas");
      if (r != 0)
        return r;
      if (cJSON_GetObjectItemCaseSensitive(inst, e->string) == NULL)
        continue;
      r = apply(c, node_of(c, e), inst, ann, "dependentSchemas", e->string,
                -1);
      if (r != 0)
        return r;
    }
  nprops = (size_t) cJSON_GetArraySize(n->kw[KW_PROPERTIES]);
  for (m = inst->child, i = 0; m != NULL; m = m->next, i++) {
    int matched = 0;

    /* The look-up below walks the schema's properties. */
    r = spend(c, nprops, "properties");
    if (r != 0)
      return r;
    v = n->kw[KW_PROPERTIES];
    e = v != NULL ? cJSON_GetObjectItemCaseSensitive(v, m->string) : NULL;
    if (e != NULL) {
      matched = 1;
      r = apply_child(c, node_of(c, e), m, "properties", m->string, -1,
                      m->string, -1);
      if (r != 0)
        return r;
    }
    v = n->kw[KW_PATTERNPROPS];
    for (k = 0, e = v != NULL ? v->child : NULL; e != NULL;
         e = e->next, k++) {
      r = mcp__re_search(n->ppatterns[k], m->string, strlen(m->string),
                         &c->steps);
      if (r < 0)
        return stopped(c, r, "patternProperties");
      if (r == 0)
        continue;
      matched = 1;
      r = apply_child(c, node_of(c, e), m, "patternProperties", e->string,
                      -1, m->string, -1);
      if (r != 0)
        return r;
    }
    if (!matched && n->kw[KW_ADDPROPS] != NULL) {
      matched = 1;
      r = apply_child(c, node_of(c, n->kw[KW_ADDPROPS]), m,
                      "additionalProperties", NULL, -1, m->string, -1);
      if (r != 0)
        return r;
    }
    if (matched)
      ann_mark(ann, i);
    if (n->kw[KW_PROPNAMES] != NULL) {
      cJSON name;

      memset(&name, 0, sizeof name);
      name.type = cJSON_String;
      name.valuestring = m->string;
      r = apply_child(c, node_of(c, n->kw[KW_PROPNAMES]), &name,
                      "propertyNames", NULL, -1, m->string, -1);
      if (r != 0)
        return r;
    }
  }
  return 0;
}

static int
eval_logic(vctx_t *c, const snode_t *n, const cJSON *inst, ann_t *ann)
{
  const cJSON *v, *e;
  int i, r, passed;

  v = n->kw[KW_ALLOF];
  if (v != NULL)
    for (e = v->child, i = 0; e != NULL; e = e->next, i++) {
      r = apply(c, node_of(c, e), inst, ann, "allOf", NULL, i);
      if (r != 0)
        return r;
    }
  v = n->kw[KW_ANYOF];
  if (v != NULL) {
    passed = 0;
    c->mute++;
    for (e = v->child, i = 0; e != NULL; e = e->next, i++) {
      r = apply(c, node_of(c, e), inst, ann, "anyOf", NULL, i);
      if (r < 0) {
        c->mute--;
        return r;
      }
      if (r == 0) {
        passed++;
        if (ann == NULL)
          break; /* no annotations wanted: one match is enough */
      }
    }
    c->mute--;
    if (passed == 0)
      return fail(c, "anyOf", "value matches none of the %d subschemas",
                  cJSON_GetArraySize(v));
  }
  v = n->kw[KW_ONEOF];
  if (v != NULL) {
    int first = -1, second = -1;

    c->mute++;
    for (e = v->child, i = 0; e != NULL && second < 0; e = e->next, i++) {
      r = apply(c, node_of(c, e), inst, ann, "oneOf", NULL, i);
      if (r < 0) {
        c->mute--;
        return r;
      }
      if (r == 0) {
        if (first < 0)
          first = i;
        else
          second = i;
      }
    }
    c->mute--;
    if (first < 0)
      return fail(c, "oneOf", "value matches none of the %d subschemas",
                  cJSON_GetArraySize(v));
    if (second >= 0)
      return fail(c, "oneOf", "value matches subschemas %d and %d, not "
                  "exactly one", first, second);
  }
  v = n->kw[KW_NOT];
  if (v != NULL) {
    c->mute++;
    r = apply(c, node_of(c, v), inst, NULL, "not", NULL, -1);
    c->mute--;
    if (r < 0)
      return r;
    if (r == 0)
      return fail(c, "not", "value matches the \"not\" subschema");
  }
  v = n->kw[KW_IF];
  if (v != NULL) {
    c->mute++;
    r = apply(c, node_of(c, v), inst, ann, "if", NULL, -1);
    c->mute--;
    if (r < 0)
      return r;
    e = r == 0 ? n->kw[KW_THEN] : n->kw[KW_ELSE];
    if (e != NULL) {
      r = apply(c, node_of(c, e), inst, ann, r == 0 ? "then" : "else", NULL,
                -1);
      if (r != 0)
        return r;
    }
  }
  return 0;
}

static int
eval_unevaluated(vctx_t *c, const snode_t *n, const cJSON *inst,
                 ann_t *ann)
{
  const cJSON *m;
  int i, r;

  if (ann == NULL)
    return 0;
  if (cJSON_IsArray(inst) && n->kw[KW_UNEVALITEMS] != NULL) {
    const snode_t *sub = node_of(c, n->kw[KW_UNEVALITEMS]);

    for (m = inst->child, i = 0; m != NULL; m = m->next, i++) {
      if (ann->m[i])
        continue;
      r = apply_child(c, sub, m, "unevaluatedItems", NULL, -1, NULL, i);
      if (r != 0)
        return r;
      ann->m[i] = 1;
    }
  }
  if (cJSON_IsObject(inst) && n->kw[KW_UNEVALPROPS] != NULL) {
    const snode_t *sub = node_of(c, n->kw[KW_UNEVALPROPS]);

    for (m = inst->child, i = 0; m != NULL; m = m->next, i++) {
      if (ann->m[i])
        continue;
      r = apply_child(c, sub, m, "unevaluatedProperties", NULL, -1,
                      m->string, -1);
      if (r != 0)
        return r;
      ann->m[i] = 1;
    }
  }
  return 0;
}

static int
eval_keywords(vctx_t *c, const snode_t *n, const cJSON *inst, ann_t *ann)
{
  int r = eval_refs(c, n, inst, ann);

  if (r == 0)
    r = eval_generic(c, n, inst);
  if (r == 0 && cJSON_IsNumber(inst))
    r = eval_number(c, n, inst);
  if (r == 0 && cJSON_IsString(inst))
    r = eval_string(c, n, inst);
  if (r == 0 && cJSON_IsArray(inst))
    r = eval_array(c, n, inst, ann);
  if (r == 0 && cJSON_IsObject(inst))
    r = eval_object(c, n, inst, ann);
  if (r == 0)
    r = eval_logic(c, n, inst, ann);
  if (r == 0)
    r = eval_unevaluated(c, n, inst, ann);
  return r;
}

/* Returns 0 valid, 1 invalid, or a negative MCP_E* code. */
static int
eval(vctx_t *c, const snode_t *n, const cJSON *inst, ann_t *ann)
{
  ann_t own;
  int r, pushed = 0;

  if (n->boolean == 1)
    return 0;
  if (n->boolean == 0)
    return fail(c, "false", "the schema \"false\" allows no value");
  if (c->depth >= c->s->max_depth)
    return too_deep(c);
  r = spend(c, 1, "$ref");
  if (r != 0)
    return r;
  c->depth++;
  if (c->nscope == 0 || c->scope[c->nscope - 1] != n->res) {
    c->scope[c->nscope++] = n->res;
    pushed = 1;
  }
  own.m = NULL;
  if (ann == NULL && n->has_uneval &&
      (cJSON_IsArray(inst) || cJSON_IsObject(inst))) {
    if (ann_init(&own, inst) < 0) {
      r = MCP_ENOMEM;
      goto done;
    }
    ann = &own;
  }
  r = eval_keywords(c, n, inst, ann);

done:
  free(own.m);
  if (pushed)
    c->nscope--;
  c->depth--;
  return r;
}

int
mcp__schema_eval_root(const mcp_schema_t *s, const cJSON *instance,
                      mcp_schema_failure_t *why)
{
  /* The context lives on the stack and its path buffers are not zeroed:
   * a validation that passes (the common case) then costs no allocation. */
  const snode_t *small_scope[130];
  vctx_t c;
  int r;

  c.s = s;
  c.depth = 0;
  c.nscope = 0;
  c.ipath[0] = '\0';
  c.ilen = 0;
  c.spath[0] = '\0';
  c.slen = 0;
  c.mute = 0;
  c.have_fail = 0;
  c.steps = s->max_steps;
  c.why = why;
  if ((size_t) s->max_depth + 2 <= sizeof small_scope / sizeof small_scope[0]) {
    c.scope = small_scope;
  } else {
    c.scope = calloc((size_t) s->max_depth + 2, sizeof *c.scope);
    if (c.scope == NULL)
      return MCP_ENOMEM;
  }
  r = eval(&c, s->root, instance, NULL);
  if (c.scope != small_scope)
    free((void *) c.scope);
  if (r == 1)
    return MCP_ESCHEMA;
  if (r == MCP_ENOMEM && why != NULL)
    snprintf(why->message, sizeof why->message, "out of memory");
  return r;
}
