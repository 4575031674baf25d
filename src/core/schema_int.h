/*
 * schema_int.h - the internals shared by the JSON Schema files: the
 * compiled node, the keyword table, the maps, URI and JSON helpers, and the
 * regular expression subset.
 *
 * Not a public header: only schema*.c include it. Everything reachable from
 * an mcp_schema_t is owned by it and freed by mcp_schema_free; after
 * mcp_schema_compile returns, nothing here is modified again, which is what
 * lets validations share one compiled schema.
 */
#ifndef MCP_SCHEMA_INT_H
#define MCP_SCHEMA_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "common.h"
#include "error.h"
#include "schema.h"

/* Keywords that take part in validation, in evaluation order. The
 * identifiers ($id, $anchor, $defs...) are handled while compiling only. */
typedef enum {
  KW_REF,
  KW_DYNREF,
  KW_TYPE,
  KW_ENUM,
  KW_CONST,
  KW_MULTIPLEOF,
  KW_MAXIMUM,
  KW_EXMAXIMUM,
  KW_MINIMUM,
  KW_EXMINIMUM,
  KW_MAXLENGTH,
  KW_MINLENGTH,
  KW_PATTERN,
  KW_MAXITEMS,
  KW_MINITEMS,
  KW_UNIQUEITEMS,
  KW_MAXCONTAINS,
  KW_MINCONTAINS,
  KW_MAXPROPS,
  KW_MINPROPS,
  KW_REQUIRED,
  KW_DEPREQUIRED,
  KW_DEPSCHEMAS,
  KW_DEPENDENCIES,
  KW_PROPERTIES,
  KW_PATTERNPROPS,
  KW_ADDPROPS,
  KW_PROPNAMES,
  KW_PREFIXITEMS,
  KW_ITEMS,
  KW_ADDITEMS,
  KW_CONTAINS,
  KW_ALLOF,
  KW_ANYOF,
  KW_ONEOF,
  KW_NOT,
  KW_IF,
  KW_THEN,
  KW_ELSE,
  KW_UNEVALITEMS,
  KW_UNEVALPROPS,
  KW__COUNT
} mcp__kw_t;

/* Vocabularies a dialect may switch off (core is always on). */
#define VOC_APPLICATOR 0x1u
#define VOC_VALIDATION 0x2u
#define VOC_UNEVALUATED 0x4u
#define VOC_ALL 0x7u

/* Bits of snode_t.types. */
#define TY_NULL 0x01u
#define TY_BOOLEAN 0x02u
#define TY_OBJECT 0x04u
#define TY_ARRAY 0x08u
#define TY_NUMBER 0x10u
#define TY_STRING 0x20u
#define TY_INTEGER 0x40u

typedef struct mcp__re_s mcp__re_t;
typedef struct mcp__snode_s snode_t;

/* A $dynamicAnchor defined in a schema resource. */
typedef struct mcp__dyn_s {
  const char *name;         /* owned by the schema's string pool */
  snode_t *node;            /* the subschema carrying the anchor */
  struct mcp__dyn_s *next;
} mcp__dyn_t;

/* One compiled subschema: an object or boolean inside one of the schema's
 * documents, with its keywords looked up and its references resolved. */
struct mcp__snode_s {
  const cJSON *json;        /* the subschema, inside a document we own */
  int boolean;              /* -1 for an object schema, else 0 or 1 */
  int draft;                /* 7 or 2020 */
  unsigned vocab;           /* VOC_* in force */
  const char *base;         /* base URI, in the string pool */
  snode_t *res;             /* the schema resource this belongs to */
  const cJSON *kw[KW__COUNT]; /* keyword values, NULL when absent */
  unsigned types;           /* TY_* from "type", 0 when absent */
  snode_t *ref;             /* $ref target */
  snode_t *dynref;          /* $dynamicRef target before dynamic lookup */
  const char *dynname;      /* anchor name when $dynamicRef is dynamic */
  mcp__re_t *pattern;       /* "pattern", compiled */
  mcp__re_t **ppatterns;    /* patternProperties, in member order */
  int nppatterns;
  int has_uneval;           /* unevaluatedItems/Properties present */
  mcp__dyn_t *dyn;          /* resource roots: their $dynamicAnchors */
  char *ref_uri;            /* while compiling: $ref, resolved */
  char *dynref_uri;         /* while compiling: $dynamicRef, resolved */
  snode_t *next;            /* all nodes, for freeing */
};

/* Open-addressing hash map from a pointer or a string to a pointer. */
typedef struct mcp__map_s {
  void **keys;    /* const cJSON * or owned char * */
  void **vals;
  size_t cap, n;
  int strings;    /* keys are strings the map owns */
} mcp__map_t;

void mcp__map_init(mcp__map_t *m, int strings);
void mcp__map_free(mcp__map_t *m);
void *mcp__map_get(const mcp__map_t *m, const void *key);
/* Adds key unless present (the first value wins); 0, or MCP_ENOMEM. */
int mcp__map_put(mcp__map_t *m, const void *key, void *val);
/* String maps: returns the map's own copy of key, adding it if absent
 * (with a NULL value), or NULL when out of memory. */
const char *mcp__map_intern(mcp__map_t *m, const char *key);

struct mcp_schema_s {
  cJSON *doc;               /* our copy of the caller's schema */
  cJSON **remotes;          /* documents returned by the resolver */
  size_t nremotes;
  snode_t *root;
  snode_t *all;             /* every node, linked through next */
  size_t nnodes;
  mcp__map_t nodes;         /* const cJSON * -> snode_t * */
  mcp__map_t uris;          /* absolute URI without fragment -> snode_t * */
  mcp__map_t anchors;       /* "uri#name" -> snode_t * */
  mcp__map_t strings;       /* string pool: string -> itself */
  int max_depth;
  size_t max_steps;
};

/* The string pool: returns a pooled copy of s (of length len), or NULL. */
const char *mcp__schema_intern(mcp_schema_t *s, const char *str, size_t len);

/* Resolves ref against base (RFC 3986 section 5.2); the caller frees the
 * result. An empty base leaves ref as it is (still normalised). */
char *mcp__uri_resolve(const char *base, const char *ref);
/* Percent-decodes in place. */
void mcp__pct_decode(char *s);

/* JSON equality as JSON Schema defines it (1 == 1.0, unordered objects):
 * 1 equal, 0 different, MCP_ETOOBIG when nested deeper than the bound or
 * when it would take more than *steps (each value compared and member
 * looked at costs one; *steps is decreased by what was spent). */
int mcp__json_equal(const cJSON *a, const cJSON *b, int depth,
                    size_t *steps);
/* Number of code points in a UTF-8 string. */
size_t mcp__utf8_length(const char *s);
uint32_t mcp__utf8_next(const char **pp, const char *end);

/* Regular expressions (schema_regex.c). compile returns 0, MCP_EINVAL with
 * msg filled, or MCP_ENOMEM; search returns 1 on a match anywhere in s, 0
 * if none, MCP_ENOMEM, or MCP_ETOOBIG when it would take more than *steps
 * (one per program instruction visited; *steps is decreased by what was
 * spent). */
int mcp__re_compile(const char *pattern, mcp__re_t **out, char *msg,
                    size_t msglen);
int mcp__re_search(const mcp__re_t *re, const char *s, size_t len,
                   size_t *steps);
/* The program's size in instructions. */
int mcp__re_size(const mcp__re_t *re);
void mcp__re_free(mcp__re_t *re);

/* Validation of one compiled schema (schema_validate.c). */
int mcp__schema_eval_root(const mcp_schema_t *s, const cJSON *instance,
                          mcp_schema_failure_t *why);

#endif
