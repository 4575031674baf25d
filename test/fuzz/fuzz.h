/*
 * fuzz.h - what the libFuzzer harnesses share: taking settings from the
 * front of an input, cutting the rest into chunks, a growable event log,
 * a clock, and a failure that libFuzzer reports as a crash.
 *
 * The input is split by hand, the way LLVM's FuzzedDataProvider does in
 * C++: settings bytes are taken from the front, and the payload is what
 * is left, so the corpus files stay readable. Chunk sizes for feeding a
 * push parser come from a small generator seeded by a settings byte, not
 * from the payload, so the same bytes are fed whole and in pieces.
 * Include it from exactly one file per harness.
 */
#ifndef MCP_FUZZ_H
#define MCP_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Ends the run as a crash, with a message: libFuzzer saves the input. */
#define FUZZ_CHECK(expr)                                                     \
  do {                                                                       \
    if (!(expr)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,      \
              #expr);                                                        \
      abort();                                                               \
    }                                                                        \
  } while (0)

typedef struct fuzz_in_s {
  const uint8_t *p;   /* the bytes not taken yet */
  size_t n;
} fuzz_in_t;

/* One byte from the front, or 0 when none is left. */
static inline uint8_t
fuzz_byte(fuzz_in_t *in)
{
  uint8_t b;

  if (in->n == 0)
    return 0;
  b = in->p[0];
  in->p++;
  in->n--;
  return b;
}

/* Chunk sizes from 1 to max, from a xorshift generator seeded by seed;
 * a chunk may be empty one time in eight (an empty feed must be
 * harmless). */
typedef struct fuzz_chunks_s {
  uint32_t state;
  size_t max;
} fuzz_chunks_t;

static inline void
fuzz_chunks_init(fuzz_chunks_t *c, uint8_t seed, size_t max)
{
  c->state = 0x9E3779B9u ^ ((uint32_t) seed * 0x01000193u);
  if (c->state == 0)
    c->state = 1;
  c->max = max > 0 ? max : 1;
}

static inline size_t
fuzz_chunks_next(fuzz_chunks_t *c)
{
  uint32_t x = c->state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  c->state = x;
  if ((x & 7u) == 0)
    return 0;
  return 1 + (size_t) ((x >> 3) % c->max);
}

/* A log of what a parser reported, to compare two runs byte for byte. */
typedef struct fuzz_log_s {
  char *data;
  size_t len, cap;
} fuzz_log_t;

static inline void
fuzz_log_put(fuzz_log_t *g, const void *bytes, size_t len)
{
  if (g->len + len > g->cap) {
    size_t cap = g->cap ? g->cap : 256;

    while (cap < g->len + len)
      cap *= 2;
    g->data = realloc(g->data, cap);
    FUZZ_CHECK(g->data != NULL);
    g->cap = cap;
  }
  if (len > 0)
    memcpy(g->data + g->len, bytes, len);
  g->len += len;
}

/* A tagged record: tag, a number, then len bytes (a NULL text counts as
 * a record of its own). */
static inline void
fuzz_log_rec(fuzz_log_t *g, char tag, uint64_t num, const char *text,
             size_t len)
{
  char null = text == NULL;

  fuzz_log_put(g, &tag, 1);
  fuzz_log_put(g, &num, sizeof num);
  fuzz_log_put(g, &null, 1);
  fuzz_log_put(g, &len, sizeof len);
  if (text != NULL)
    fuzz_log_put(g, text, len);
}

static inline int
fuzz_log_same(const fuzz_log_t *a, const fuzz_log_t *b)
{
  return a->len == b->len && (a->len == 0 ||
                              memcmp(a->data, b->data, a->len) == 0);
}

static inline void
fuzz_log_free(fuzz_log_t *g)
{
  free(g->data);
  memset(g, 0, sizeof *g);
}

/* Monotonic milliseconds, for the time bounds. */
static inline double
fuzz_now_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* The time bound of one search or validation, in milliseconds:
 * FUZZ_TIME_BOUND_MS from the environment, or def. */
static inline double
fuzz_time_bound_ms(double def)
{
  const char *s = getenv("FUZZ_TIME_BOUND_MS");
  double v;

  if (s == NULL || *s == '\0')
    return def;
  v = atof(s);
  return v > 0 ? v : def;
}

/* Whether FUZZ_SKIP (a comma-separated list) names a reported defect
 * whose check the run should pass over, so that a campaign can go on
 * while the fix is pending. Every name and its defect is listed in
 * test/fuzz/README.md; by default nothing is skipped. */
static inline int
fuzz_skip(const char *name)
{
  const char *s = getenv("FUZZ_SKIP"), *p;
  size_t n = strlen(name);

  for (p = s; p != NULL && (p = strstr(p, name)) != NULL; p += n) {
    if ((p == s || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
      return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
