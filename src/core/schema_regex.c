/*
 * schema_regex.c - the ECMA-262 regular expression subset used by the JSON
 * Schema keywords "pattern" and "patternProperties".
 *
 * A pattern is parsed once into a small syntax tree and compiled into a
 * Thompson NFA program; a search simulates the NFA over the code points of
 * the subject (Pike's method without captures). Matching therefore takes
 * time linear in the subject for a given program, never backtracks and
 * cannot be driven into exponential time by a hostile pattern. It can
 * still take program size times subject length (20,000 instructions over
 * a megabyte is seconds), so every search is given a step budget: one step
 * per instruction visited and per thread tested against a character (a
 * class costs its ranges too), and the search stops with MCP_ETOOBIG when
 * the budget runs out.
 *
 * Supported: literals (UTF-8), ".", "^", "$", "|", groups "(...)",
 * "(?:...)" and "(?<name>...)", the quantifiers "*", "+", "?", "{n}",
 * "{n,}", "{n,m}" and their lazy forms (laziness cannot change whether a
 * match exists), classes "[...]" and "[^...]" with ranges, the escapes
 * \d \D \w \W \s \S \b \B \t \n \v \f \r \0 \cX \xHH \uHHHH \u{H...}, and
 * \p{...}/\P{...} for L/Letter, Lu, Ll, N/Nd/digit (letters use an
 * approximate table of the main alphabetic blocks, not the full Unicode
 * database). Unsupported, reported as a compile error: lookaround "(?=",
 * "(?!", "(?<=", "(?<!", backreferences \1 and \k<name>, and other
 * Unicode properties. There are no flags: JSON Schema patterns are
 * case-sensitive and not multiline.
 *
 * The compiled program is immutable; searching allocates its own thread
 * lists, so one program may be used by many validations.
 */
#include "schema_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RE_MAX_PROG 20000   /* instructions after expanding {n,m} */
#define RE_MAX_REPEAT 1000  /* largest n or m accepted in {n,m} */
#define RE_MAX_NEST 100     /* group nesting in the pattern */
#define RE_INF (-1)
#define CLASS_FLAGS_COST 40 /* steps of testing \p{L} & co (is_letter) */

/* Named classes a class or escape can include (bit flags). */
enum {
  RC_DIGIT = 1 << 0,
  RC_NDIGIT = 1 << 1,
  RC_WORD = 1 << 2,
  RC_NWORD = 1 << 3,
  RC_SPACE = 1 << 4,
  RC_NSPACE = 1 << 5,
  RC_LETTER = 1 << 6,
  RC_NLETTER = 1 << 7,
  RC_UPPER = 1 << 8,
  RC_NUPPER = 1 << 9,
  RC_LOWER = 1 << 10,
  RC_NLOWER = 1 << 11
};

typedef struct re_range_s {
  uint32_t lo, hi;
} re_range_t;

typedef struct re_class_s {
  re_range_t *ranges;  /* owned */
  int n, cap;
  unsigned flags;      /* RC_* */
  int negate;          /* [^...] */
} re_class_t;

/* Syntax tree node kinds and program opcodes. */
enum {
  N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL, N_WORDB, N_NWORDB,
  N_CAT, N_ALT, N_REP
};

enum {
  OP_CHAR, OP_ANY, OP_CLASS, OP_BOL, OP_EOL, OP_WORDB, OP_NWORDB,
  OP_SPLIT, OP_JMP, OP_MATCH
};

typedef struct re_node_s {
  int kind;     /* N_* */
  uint32_t c;   /* N_CHAR: the code point; N_CLASS: class index */
  int a, b;     /* children (N_CAT, N_ALT; N_REP uses a) */
  int min, max; /* N_REP bounds, max RE_INF for unbounded */
} re_node_t;

typedef struct re_inst_s {
  int op;     /* OP_* */
  uint32_t c; /* OP_CHAR code point, OP_CLASS class index */
  int x, y;   /* jump targets */
} re_inst_t;

struct mcp__re_s {
  re_inst_t *prog;      /* owned */
  int nprog;
  re_class_t *classes;  /* owned, with their ranges */
  int nclasses;
};

/* Parser state; the tree lives in `nodes` and is freed after codegen. */
typedef struct re_parse_s {
  const char *p, *end;
  re_node_t *nodes;
  int nnodes, capnodes;
  mcp__re_t *re;
  int capprog;        /* instructions allocated for re->prog */
  int depth;
  char *msg;
  size_t msglen;
  int rc;        /* first error */
} re_parse_t;

static int
re_fail(re_parse_t *ps, int code, const char *what)
{
  if (ps->rc == 0) {
    ps->rc = code;
    if (ps->msg != NULL)
      snprintf(ps->msg, ps->msglen, "%s", what);
  }
  return -1;
}

/* Decodes one UTF-8 sequence at *pp (leniently: a stray byte is its own
 * code point) and advances *pp. */
uint32_t
mcp__utf8_next(const char **pp, const char *end)
{
  const unsigned char *s = (const unsigned char *) *pp;
  uint32_t c = s[0];
  int n, i;

  if (c < 0x80) {
    n = 0;
  } else if (c >= 0xC0 && c < 0xE0) {
    n = 1;
    c &= 0x1F;
  } else if (c >= 0xE0 && c < 0xF0) {
    n = 2;
    c &= 0x0F;
  } else if (c >= 0xF0 && c < 0xF8) {
    n = 3;
    c &= 0x07;
  } else {
    *pp += 1;
    return s[0];
  }
  if (end - *pp < n + 1) {
    *pp += 1;
    return s[0];
  }
  for (i = 1; i <= n; i++) {
    if ((s[i] & 0xC0) != 0x80) {
      *pp += 1;
      return s[0];
    }
    c = (c << 6) | (s[i] & 0x3F);
  }
  *pp += n + 1;
  return c;
}

static int
new_node(re_parse_t *ps, int kind)
{
  re_node_t *n;

  if (ps->nnodes == ps->capnodes) {
    int cap = ps->capnodes ? ps->capnodes * 2 : 32;
    re_node_t *nn = realloc(ps->nodes, (size_t) cap * sizeof *nn);

    if (nn == NULL)
      return re_fail(ps, MCP_ENOMEM, "out of memory");
    ps->nodes = nn;
    ps->capnodes = cap;
  }
  n = &ps->nodes[ps->nnodes];
  memset(n, 0, sizeof *n);
  n->kind = kind;
  return ps->nnodes++;
}

static int
new_class(re_parse_t *ps)
{
  mcp__re_t *re = ps->re;
  re_class_t *nc = realloc(re->classes,
                           (size_t) (re->nclasses + 1) * sizeof *nc);

  if (nc == NULL)
    return re_fail(ps, MCP_ENOMEM, "out of memory");
  re->classes = nc;
  memset(&nc[re->nclasses], 0, sizeof *nc);
  return re->nclasses++;
}

static int
class_add(re_parse_t *ps, int cls, uint32_t lo, uint32_t hi)
{
  re_class_t *k = &ps->re->classes[cls];

  if (k->n == k->cap) {
    int cap = k->cap ? k->cap * 2 : 8;
    re_range_t *nr = realloc(k->ranges, (size_t) cap * sizeof *nr);

    if (nr == NULL)
      return re_fail(ps, MCP_ENOMEM, "out of memory");
    k->ranges = nr;
    k->cap = cap;
  }
  k->ranges[k->n].lo = lo;
  k->ranges[k->n].hi = hi;
  k->n++;
  return 0;
}

static int
hexval(int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads exactly n hex digits; returns -1 if they are not there. */
static long
read_hex(re_parse_t *ps, int n)
{
  long v = 0;
  int i;

  if (ps->end - ps->p < n)
    return -1;
  for (i = 0; i < n; i++) {
    int h = hexval((unsigned char) ps->p[i]);

    if (h < 0)
      return -1;
    v = v * 16 + h;
  }
  ps->p += n;
  return v;
}

/* Parses the body of \p{...} (after the "p"); returns RC_* flags. */
static int
parse_property(re_parse_t *ps, int negated)
{
  const char *start;
  size_t len;
  unsigned pos = 0, neg = 0;

  if (ps->p >= ps->end || *ps->p != '{')
    return re_fail(ps, MCP_EINVAL, "\\p needs {name}");
  start = ++ps->p;
  while (ps->p < ps->end && *ps->p != '}')
    ps->p++;
  if (ps->p >= ps->end)
    return re_fail(ps, MCP_EINVAL, "unterminated \\p{");
  len = (size_t) (ps->p - start);
  ps->p++;
#define PROP_IS(s) (len == strlen(s) && memcmp(start, s, len) == 0)
  if (PROP_IS("L") || PROP_IS("Letter") || PROP_IS("Alphabetic") ||
      PROP_IS("Alpha")) {
    pos = RC_LETTER;
    neg = RC_NLETTER;
  } else if (PROP_IS("Lu") || PROP_IS("Uppercase_Letter")) {
    pos = RC_UPPER;
    neg = RC_NUPPER;
  } else if (PROP_IS("Ll") || PROP_IS("Lowercase_Letter")) {
    pos = RC_LOWER;
    neg = RC_NLOWER;
  } else if (PROP_IS("N") || PROP_IS("Nd") || PROP_IS("Number") ||
             PROP_IS("Decimal_Number") || PROP_IS("digit")) {
    pos = RC_DIGIT;
    neg = RC_NDIGIT;
  } else {
    return re_fail(ps, MCP_EINVAL, "unsupported Unicode property in \\p{}");
  }
#undef PROP_IS
  return (int) (negated ? neg : pos);
}

/*
 * Parses one escape after the backslash. Returns 1 with *cp set for a
 * character, 2 with *flags set for a class escape, 3 with *kind set for an
 * assertion (\b \B, only outside classes), or -1 on error.
 */
static int
parse_escape(re_parse_t *ps, int in_class, uint32_t *cp, unsigned *flags,
             int *kind)
{
  int c;
  long v;

  if (ps->p >= ps->end)
    return re_fail(ps, MCP_EINVAL, "pattern ends with a backslash");
  c = (unsigned char) *ps->p++;
  switch (c) {
  case 'd': *flags = RC_DIGIT; return 2;
  case 'D': *flags = RC_NDIGIT; return 2;
  case 'w': *flags = RC_WORD; return 2;
  case 'W': *flags = RC_NWORD; return 2;
  case 's': *flags = RC_SPACE; return 2;
  case 'S': *flags = RC_NSPACE; return 2;
  case 'p':
  case 'P': {
    int f = parse_property(ps, c == 'P');

    if (f < 0)
      return -1;
    *flags = (unsigned) f;
    return 2;
  }
  case 'b':
    if (in_class) {
      *cp = 0x08;
      return 1;
    }
    *kind = N_WORDB;
    return 3;
  case 'B':
    if (in_class)
      return re_fail(ps, MCP_EINVAL, "\\B inside a class");
    *kind = N_NWORDB;
    return 3;
  case 't': *cp = '\t'; return 1;
  case 'n': *cp = '\n'; return 1;
  case 'v': *cp = '\v'; return 1;
  case 'f': *cp = '\f'; return 1;
  case 'r': *cp = '\r'; return 1;
  case '0':
    if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
      return re_fail(ps, MCP_EINVAL, "octal escapes are not supported");
    *cp = 0;
    return 1;
  case 'c':
    if (ps->p < ps->end && ((*ps->p >= 'a' && *ps->p <= 'z') ||
                            (*ps->p >= 'A' && *ps->p <= 'Z'))) {
      *cp = (uint32_t) (*ps->p++ % 32);
      return 1;
    }
    return re_fail(ps, MCP_EINVAL, "bad \\c escape");
  case 'x':
    v = read_hex(ps, 2);
    if (v < 0)
      return re_fail(ps, MCP_EINVAL, "bad \\x escape");
    *cp = (uint32_t) v;
    return 1;
  case 'u':
    if (ps->p < ps->end && *ps->p == '{') {
      v = 0;
      ps->p++;
      while (ps->p < ps->end && hexval((unsigned char) *ps->p) >= 0 &&
             v <= 0x10FFFF)
        v = v * 16 + hexval((unsigned char) *ps->p++);
      if (ps->p >= ps->end || *ps->p != '}' || v > 0x10FFFF)
        return re_fail(ps, MCP_EINVAL, "bad \\u{} escape");
      ps->p++;
      *cp = (uint32_t) v;
      return 1;
    }
    v = read_hex(ps, 4);
    if (v < 0)
      return re_fail(ps, MCP_EINVAL, "bad \\u escape");
    if (v >= 0xD800 && v <= 0xDBFF && ps->end - ps->p >= 6 &&
        ps->p[0] == '\\' && ps->p[1] == 'u') {
      const char *save = ps->p;
      long lo;

      ps->p += 2;
      lo = read_hex(ps, 4);
      if (lo >= 0xDC00 && lo <= 0xDFFF)
        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
      else
        ps->p = save;
    }
    *cp = (uint32_t) v;
    return 1;
  case 'k':
    return re_fail(ps, MCP_EINVAL, "backreferences are not supported");
  default:
    if (c >= '1' && c <= '9')
      return re_fail(ps, MCP_EINVAL, "backreferences are not supported");
    if (c >= 0x80) {
      ps->p--;
      *cp = mcp__utf8_next(&ps->p, ps->end);
      return 1;
    }
    *cp = (uint32_t) c;
    return 1;
  }
}

/* Parses "[...]" after the "[". */
static int
parse_class(re_parse_t *ps)
{
  int cls = new_class(ps), node;

  if (cls < 0)
    return -1;
  if (ps->p < ps->end && *ps->p == '^') {
    ps->re->classes[cls].negate = 1;
    ps->p++;
  }
  for (;;) {
    uint32_t lo, hi;
    unsigned flags = 0;
    int kind = 0, r;

    if (ps->p >= ps->end)
      return re_fail(ps, MCP_EINVAL, "unterminated character class");
    if (*ps->p == ']') {
      ps->p++;
      break;
    }
    if (*ps->p == '\\') {
      ps->p++;
      r = parse_escape(ps, 1, &lo, &flags, &kind);
      if (r < 0)
        return -1;
      if (r == 2) {
        ps->re->classes[cls].flags |= flags;
        continue;
      }
    } else {
      lo = mcp__utf8_next(&ps->p, ps->end);
    }
    hi = lo;
    if (ps->end - ps->p >= 2 && ps->p[0] == '-' && ps->p[1] != ']') {
      ps->p++;
      if (*ps->p == '\\') {
        ps->p++;
        r = parse_escape(ps, 1, &hi, &flags, &kind);
        if (r < 0)
          return -1;
        if (r == 2)
          return re_fail(ps, MCP_EINVAL, "class escape in a range");
      } else {
        hi = mcp__utf8_next(&ps->p, ps->end);
      }
      if (hi < lo)
        return re_fail(ps, MCP_EINVAL, "range out of order in class");
    }
    if (class_add(ps, cls, lo, hi) < 0)
      return -1;
  }
  node = new_node(ps, N_CLASS);
  if (node < 0)
    return -1;
  ps->nodes[node].c = (uint32_t) cls;
  return node;
}

static int parse_alt(re_parse_t *ps);

static int
parse_atom(re_parse_t *ps)
{
  int c = (unsigned char) *ps->p, node, r, kind = 0;
  uint32_t cp = 0;
  unsigned flags = 0;

  switch (c) {
  case '(':
    ps->p++;
    if (ps->p < ps->end && *ps->p == '?') {
      if (ps->end - ps->p >= 2 && ps->p[1] == ':') {
        ps->p += 2;
      } else if (ps->end - ps->p >= 3 && ps->p[1] == '<' && ps->p[2] != '=' &&
                 ps->p[2] != '!') {
        while (ps->p < ps->end && *ps->p != '>')
          ps->p++;
        if (ps->p >= ps->end)
          return re_fail(ps, MCP_EINVAL, "unterminated group name");
        ps->p++;
      } else {
        return re_fail(ps, MCP_EINVAL, "lookaround is not supported");
      }
    }
    if (++ps->depth > RE_MAX_NEST)
      return re_fail(ps, MCP_EINVAL, "groups nested too deeply");
    node = parse_alt(ps);
    ps->depth--;
    if (node < 0)
      return -1;
    if (ps->p >= ps->end || *ps->p != ')')
      return re_fail(ps, MCP_EINVAL, "missing )");
    ps->p++;
    return node;
  case ')':
    return re_fail(ps, MCP_EINVAL, "unmatched )");
  case '*':
  case '+':
  case '?':
    return re_fail(ps, MCP_EINVAL, "nothing to repeat");
  case '[':
    ps->p++;
    return parse_class(ps);
  case '.':
    ps->p++;
    return new_node(ps, N_ANY);
  case '^':
    ps->p++;
    return new_node(ps, N_BOL);
  case '$':
    ps->p++;
    return new_node(ps, N_EOL);
  case '\\':
    ps->p++;
    r = parse_escape(ps, 0, &cp, &flags, &kind);
    if (r < 0)
      return -1;
    if (r == 3)
      return new_node(ps, kind);
    if (r == 2) {
      int cls = new_class(ps);

      if (cls < 0)
        return -1;
      ps->re->classes[cls].flags = flags;
      node = new_node(ps, N_CLASS);
      if (node >= 0)
        ps->nodes[node].c = (uint32_t) cls;
      return node;
    }
    break;
  default:
    cp = mcp__utf8_next(&ps->p, ps->end);
    break;
  }
  node = new_node(ps, N_CHAR);
  if (node >= 0)
    ps->nodes[node].c = cp;
  return node;
}

/* Reads a decimal number of at most RE_MAX_REPEAT; -1 if none. */
static int
read_count(const char **pp, const char *end)
{
  long v = 0;
  int any = 0;

  while (*pp < end && **pp >= '0' && **pp <= '9') {
    v = v * 10 + (**pp - '0');
    if (v > RE_MAX_REPEAT + 1)
      v = RE_MAX_REPEAT + 1;
    (*pp)++;
    any = 1;
  }
  return any ? (int) v : -1;
}

static int
parse_repeat(re_parse_t *ps)
{
  int atom = parse_atom(ps);

  while (atom >= 0 && ps->p < ps->end) {
    int min, max, rep, k = ps->nodes[atom].kind;
    const char *q = ps->p;

    if (*q == '*') {
      min = 0;
      max = RE_INF;
      q++;
    } else if (*q == '+') {
      min = 1;
      max = RE_INF;
      q++;
    } else if (*q == '?') {
      min = 0;
      max = 1;
      q++;
    } else if (*q == '{') {
      q++;
      min = read_count(&q, ps->end);
      if (min < 0)
        break; /* a literal "{" (Annex B) */
      max = min;
      if (q < ps->end && *q == ',') {
        q++;
        max = read_count(&q, ps->end);
        if (max < 0)
          max = RE_INF;
      }
      if (q >= ps->end || *q != '}')
        break;
      q++;
      if (min > RE_MAX_REPEAT || max > RE_MAX_REPEAT)
        return re_fail(ps, MCP_EINVAL, "repetition count too large");
      if (max != RE_INF && max < min)
        return re_fail(ps, MCP_EINVAL, "numbers out of order in {}");
    } else {
      break;
    }
    if (k == N_BOL || k == N_EOL || k == N_WORDB || k == N_NWORDB)
      return re_fail(ps, MCP_EINVAL, "nothing to repeat");
    if (q < ps->end && *q == '?')
      q++; /* lazy: the same set of matches */
    ps->p = q;
    rep = new_node(ps, N_REP);
    if (rep < 0)
      return -1;
    ps->nodes[rep].a = atom;
    ps->nodes[rep].min = min;
    ps->nodes[rep].max = max;
    atom = rep;
  }
  return atom;
}

static int
parse_cat(re_parse_t *ps)
{
  int left = new_node(ps, N_EMPTY);

  while (left >= 0 && ps->p < ps->end && *ps->p != '|' && *ps->p != ')') {
    int right = parse_repeat(ps), cat;

    if (right < 0)
      return -1;
    cat = new_node(ps, N_CAT);
    if (cat < 0)
      return -1;
    ps->nodes[cat].a = left;
    ps->nodes[cat].b = right;
    left = cat;
  }
  return left;
}

static int
parse_alt(re_parse_t *ps)
{
  int left = parse_cat(ps);

  while (left >= 0 && ps->p < ps->end && *ps->p == '|') {
    int right, alt;

    ps->p++;
    right = parse_cat(ps);
    if (right < 0)
      return -1;
    alt = new_node(ps, N_ALT);
    if (alt < 0)
      return -1;
    ps->nodes[alt].a = left;
    ps->nodes[alt].b = right;
    left = alt;
  }
  return left;
}

/* The instructions gen emits for node ni, counted on the tree (each node
 * once per path), saturating past RE_MAX_PROG: a pattern too large once
 * expanded is refused before anything is generated. */
static long
prog_size(const re_parse_t *ps, int ni, int depth)
{
  const re_node_t *n = &ps->nodes[ni];
  long a, b;

  if (depth > RE_MAX_NEST * 4 + 64)
    return RE_MAX_PROG + 1L;   /* gen reports the nesting */
  switch (n->kind) {
  case N_EMPTY:
    return 0;
  case N_CAT:
  case N_ALT:
    a = prog_size(ps, n->a, depth + 1);
    b = prog_size(ps, n->b, depth + 1);
    a += b + (n->kind == N_ALT ? 2 : 0);
    break;
  case N_REP:
    b = prog_size(ps, n->a, depth + 1);
    a = (long) n->min * b;
    if (n->max == RE_INF)
      a += b + 2;
    else
      a += (long) (n->max - n->min) * (b + 1);
    break;
  default:
    return 1;
  }
  return a > RE_MAX_PROG ? RE_MAX_PROG + 1L : a;
}

/* Code generation: appends an instruction to the program, which was
 * allocated at its final size. */
static int
emit(re_parse_t *ps, int op, uint32_t c)
{
  mcp__re_t *re = ps->re;
  re_inst_t *in;

  if (re->nprog >= ps->capprog)
    return re_fail(ps, MCP_EINVAL, "pattern too large once expanded");
  in = &re->prog[re->nprog];
  in->op = op;
  in->c = c;
  in->x = in->y = 0;
  return re->nprog++;
}

static int
gen(re_parse_t *ps, int ni, int depth)
{
  re_node_t n = ps->nodes[ni];
  int i, split, jmp;
  static const int ops[] = {
    -1, OP_CHAR, OP_ANY, OP_CLASS, OP_BOL, OP_EOL, OP_WORDB, OP_NWORDB
  };

  if (depth > RE_MAX_NEST * 4 + 64)
    return re_fail(ps, MCP_EINVAL, "pattern nested too deeply");
  switch (n.kind) {
  case N_EMPTY:
    return 0;
  case N_CAT:
    if (gen(ps, n.a, depth + 1) < 0)
      return -1;
    return gen(ps, n.b, depth + 1);
  case N_ALT:
    split = emit(ps, OP_SPLIT, 0);
    if (split < 0)
      return -1;
    ps->re->prog[split].x = split + 1;
    if (gen(ps, n.a, depth + 1) < 0)
      return -1;
    jmp = emit(ps, OP_JMP, 0);
    if (jmp < 0)
      return -1;
    ps->re->prog[split].y = ps->re->nprog;
    if (gen(ps, n.b, depth + 1) < 0)
      return -1;
    ps->re->prog[jmp].x = ps->re->nprog;
    return 0;
  case N_REP:
    for (i = 0; i < n.min; i++)
      if (gen(ps, n.a, depth + 1) < 0)
        return -1;
    if (n.max == RE_INF) {
      split = emit(ps, OP_SPLIT, 0);
      if (split < 0)
        return -1;
      ps->re->prog[split].x = split + 1;
      if (gen(ps, n.a, depth + 1) < 0)
        return -1;
      jmp = emit(ps, OP_JMP, 0);
      if (jmp < 0)
        return -1;
      ps->re->prog[jmp].x = split;
      ps->re->prog[split].y = ps->re->nprog;
      return 0;
    }
    /* Optional copies: each split skips to the end of its own copy, which
     * also skips the later copies since they are nested after it. */
    {
      int k, count = n.max - n.min;
      int *splits;

      if (count == 0)
        return 0;
      splits = malloc((size_t) count * sizeof *splits);
      if (splits == NULL)
        return re_fail(ps, MCP_ENOMEM, "out of memory");
      for (k = 0; k < count; k++) {
        splits[k] = emit(ps, OP_SPLIT, 0);
        if (splits[k] < 0 || gen(ps, n.a, depth + 1) < 0) {
          free(splits);
          return -1;
        }
        ps->re->prog[splits[k]].x = splits[k] + 1;
      }
      for (k = 0; k < count; k++)
        ps->re->prog[splits[k]].y = ps->re->nprog;
      free(splits);
      return 0;
    }
  default:
    i = emit(ps, ops[n.kind], n.c);
    return i < 0 ? -1 : 0;
  }
}

int
mcp__re_size(const mcp__re_t *re)
{
  return re->nprog;
}

void
mcp__re_free(mcp__re_t *re)
{
  int i;

  if (re == NULL)
    return;
  for (i = 0; i < re->nclasses; i++)
    free(re->classes[i].ranges);
  free(re->classes);
  free(re->prog);
  free(re);
}

int
mcp__re_compile(const char *pattern, mcp__re_t **out, char *msg,
                size_t msglen)
{
  re_parse_t ps;
  int root;

  *out = NULL;
  memset(&ps, 0, sizeof ps);
  ps.p = pattern;
  ps.end = pattern + strlen(pattern);
  ps.msg = msg;
  ps.msglen = msglen;
  ps.re = calloc(1, sizeof *ps.re);
  if (ps.re == NULL)
    return MCP_ENOMEM;
  root = parse_alt(&ps);
  if (root >= 0 && ps.p < ps.end)
    re_fail(&ps, MCP_EINVAL, "unmatched )");
  if (ps.rc == 0) {
    long size = prog_size(&ps, root, 0) + 1;   /* and OP_MATCH */

    if (size > RE_MAX_PROG) {
      re_fail(&ps, MCP_EINVAL, "pattern too large once expanded");
    } else {
      ps.re->prog = malloc((size_t) size * sizeof *ps.re->prog);
      if (ps.re->prog == NULL)
        re_fail(&ps, MCP_ENOMEM, "out of memory");
      ps.capprog = (int) size;
    }
  }
  if (ps.rc == 0)
    gen(&ps, root, 0);
  if (ps.rc == 0)
    emit(&ps, OP_MATCH, 0);
  free(ps.nodes);
  if (ps.rc != 0) {
    mcp__re_free(ps.re);
    return ps.rc;
  }
  *out = ps.re;
  return 0;
}

/* Approximate Unicode letter test: ASCII plus the main alphabetic blocks. */
static int
is_letter(uint32_t c)
{
  static const uint32_t r[][2] = {
    {'A', 'Z'}, {'a', 'z'}, {0xAA, 0xAA}, {0xB5, 0xB5}, {0xBA, 0xBA},
    {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x2C1}, {0x2C6, 0x2D1},
    {0x2E0, 0x2E4}, {0x370, 0x374}, {0x376, 0x37D}, {0x386, 0x386},
    {0x388, 0x3FF}, {0x400, 0x481}, {0x48A, 0x52F}, {0x531, 0x556},
    {0x561, 0x587}, {0x5D0, 0x5EA}, {0x620, 0x64A}, {0x671, 0x6D3},
    {0x904, 0x939}, {0xE01, 0xE30}, {0x10A0, 0x10FF}, {0x1100, 0x11FF},
    {0x1E00, 0x1FFF}, {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x3400, 0x4DBF},
    {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFF21, 0xFF3A},
    {0xFF41, 0xFF5A}, {0x20000, 0x2FA1F}
  };
  size_t i;

  for (i = 0; i < sizeof r / sizeof r[0]; i++)
    if (c >= r[i][0] && c <= r[i][1])
      return 1;
  return 0;
}

/* Upper/lower case: ASCII, Latin-1, Latin Extended-A pairs, Greek and
 * Cyrillic basic ranges. */
static int
is_upper(uint32_t c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
         (c >= 0x100 && c <= 0x17F && c % 2 == 0) ||
         (c >= 0x391 && c <= 0x3AB) || (c >= 0x400 && c <= 0x42F);
}

static int
is_lower(uint32_t c)
{
  return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
         (c >= 0x100 && c <= 0x17F && c % 2 == 1) ||
         (c >= 0x3AC && c <= 0x3CE) || (c >= 0x430 && c <= 0x45F);
}

static int
is_space(uint32_t c)
{
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 ||
         c == 0xFEFF;
}

static int
is_word(uint32_t c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

static int
class_match(const re_class_t *k, uint32_t c)
{
  int i, in = 0;
  unsigned f = k->flags;

  for (i = 0; i < k->n && !in; i++)
    if (c >= k->ranges[i].lo && c <= k->ranges[i].hi)
      in = 1;
  if (!in && f != 0) {
    int dig = c >= '0' && c <= '9';

    in = ((f & RC_DIGIT) && dig) || ((f & RC_NDIGIT) && !dig) ||
         ((f & RC_WORD) && is_word(c)) || ((f & RC_NWORD) && !is_word(c)) ||
         ((f & RC_SPACE) && is_space(c)) ||
         ((f & RC_NSPACE) && !is_space(c)) ||
         ((f & RC_LETTER) && is_letter(c)) ||
         ((f & RC_NLETTER) && !is_letter(c)) ||
         ((f & RC_UPPER) && is_upper(c)) ||
         ((f & RC_NUPPER) && !is_upper(c)) ||
         ((f & RC_LOWER) && is_lower(c)) ||
         ((f & RC_NLOWER) && !is_lower(c));
  }
  return k->negate ? !in : in;
}

/* Thread list for one input position. */
typedef struct re_list_s {
  int *pc;
  int n;
} re_list_t;

/*
 * Adds pc and everything reachable from it without consuming input to
 * list, given the code points before (prev, -1 at the start) and at (cur,
 * -1 at the end) the position. Returns 1 if OP_MATCH is reachable, or
 * MCP_ETOOBIG when *steps runs out.
 */
static int
add_thread(const mcp__re_t *re, re_list_t *list, int *mark, int stamp,
           int *stack, int pc0, long prev, long cur, size_t *steps)
{
  int sp = 0;

  stack[sp++] = pc0;
  while (sp > 0) {
    int pc = stack[--sp];
    const re_inst_t *in = &re->prog[pc];

    if (mark[pc] == stamp)
      continue;
    if (*steps == 0)
      return MCP_ETOOBIG;
    (*steps)--;
    mark[pc] = stamp;
    switch (in->op) {
    case OP_MATCH:
      return 1;
    case OP_JMP:
      stack[sp++] = in->x;
      break;
    case OP_SPLIT:
      stack[sp++] = in->y;
      stack[sp++] = in->x;
      break;
    case OP_BOL:
      if (prev < 0)
        stack[sp++] = pc + 1;
      break;
    case OP_EOL:
      if (cur < 0)
        stack[sp++] = pc + 1;
      break;
    case OP_WORDB:
    case OP_NWORDB: {
      int a = prev >= 0 && is_word((uint32_t) prev);
      int b = cur >= 0 && is_word((uint32_t) cur);

      if ((a != b) == (in->op == OP_WORDB))
        stack[sp++] = pc + 1;
      break;
    }
    default:
      list->pc[list->n++] = pc;
      break;
    }
  }
  return 0;
}

int
mcp__re_search(const mcp__re_t *re, const char *s, size_t len,
               size_t *steps)
{
  const char *p = s, *end = s + len;
  int n = re->nprog, *buf, *mark, *stack, stamp = 0, found = 0;
  re_list_t cl, nl, tmp;
  long prev = -1, cur;

  buf = malloc((size_t) n * 5 * sizeof *buf + 2 * sizeof *buf);
  if (buf == NULL)
    return MCP_ENOMEM;
  cl.pc = buf;
  nl.pc = buf + n;
  mark = buf + 2 * n;
  stack = buf + 3 * n;
  memset(mark, 0xff, (size_t) n * sizeof *mark);
  cl.n = nl.n = 0;
  for (;;) {
    const char *q = p, *r;
    long next;
    int i;

    cur = p < end ? (long) mcp__utf8_next(&q, end) : -1;
    /* Unanchored search: a new thread starts at every position. */
    found = add_thread(re, &cl, mark, stamp, stack, 0, prev, cur, steps);
    if (found != 0 || cur < 0)
      break;
    stamp++;
    nl.n = 0;
    r = q;
    next = r < end ? (long) mcp__utf8_next(&r, end) : -1;
    for (i = 0; i < cl.n && found == 0; i++) {
      const re_inst_t *in = &re->prog[cl.pc[i]];
      size_t cost = 1;
      int ok = 0;

      /* Testing a class walks its ranges, and a property's table. */
      if (in->op == OP_CLASS)
        cost += (size_t) re->classes[in->c].n +
                (re->classes[in->c].flags != 0 ? CLASS_FLAGS_COST : 0);
      if (*steps < cost) {
        *steps = 0;
        found = MCP_ETOOBIG;
        break;
      }
      *steps -= cost;
      if (in->op == OP_CHAR)
        ok = in->c == (uint32_t) cur;
      else if (in->op == OP_ANY)
        ok = cur != '\n' && cur != '\r' && cur != 0x2028 && cur != 0x2029;
      else if (in->op == OP_CLASS)
        ok = class_match(&re->classes[in->c], (uint32_t) cur);
      if (ok)
        found = add_thread(re, &nl, mark, stamp, stack, cl.pc[i] + 1, cur,
                           next, steps);
    }
    if (found != 0)
      break;
    tmp = cl;
    cl = nl;
    nl = tmp;
    prev = cur;
    p = q;
  }
  free(buf);
  return found;
}
