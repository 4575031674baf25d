/*
 * fuzz_framing.c - libFuzzer harness for the newline-delimited framing
 * of the stdio transport (src/core/framing.c), whose input is whatever a
 * server process writes to its stdout.
 *
 * Input: byte 0 picks the line limit, byte 1 seeds the chunk sizes, byte
 * 2 bounds them; the rest is the stream. It is framed three ways: in one
 * feed, in chunks, and by a model written from framing.h (split at '\n';
 * an unterminated last line is not delivered; one trailing '\r' is
 * dropped; blank lines are skipped; a line over the limit is reported
 * with its size and the id found by the id scanner). All three must
 * agree, report for report.
 */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "framing.h"
#include "fuzz.h"
#include "idscan.h"

typedef struct run_s {
  fuzz_log_t log;
  size_t max;
} run_t;

static void
on_message(void *ud, const char *line, size_t len)
{
  run_t *r = ud;

  FUZZ_CHECK(len > 0 && len <= r->max);
  FUZZ_CHECK(memchr(line, '\n', len) == NULL);
  fuzz_log_rec(&r->log, 'M', 0, line, len);
}

static void
on_oversize(void *ud, size_t size, const char *id, size_t id_len)
{
  run_t *r = ud;

  FUZZ_CHECK(size > r->max);
  FUZZ_CHECK(id == NULL || (id_len > 0 && id_len < 64));
  fuzz_log_rec(&r->log, 'O', (uint64_t) size, id, id != NULL ? id_len : 0);
}

static const mcp_framing_cb_t callbacks = { on_message, on_oversize };

static void
run(run_t *r, const uint8_t *data, size_t size, fuzz_chunks_t *chunks)
{
  mcp_framing_t f;
  size_t at = 0, n;

  mcp_framing_init(&f, r->max, &callbacks, r);
  if (chunks == NULL) {
    FUZZ_CHECK(mcp_framing_feed(&f, (const char *) data, size) == 0);
  } else {
    while (at < size) {
      n = fuzz_chunks_next(chunks);
      if (n > size - at)
        n = size - at;
      FUZZ_CHECK(mcp_framing_feed(&f, (const char *) data + at, n) == 0);
      at += n;
    }
  }
  mcp_framing_free(&f);
}

/* The model. A line of more than max + 1 bytes is dropped as it arrives,
 * '\r' included; a shorter one loses its '\r' before the size check. */
static void
model(run_t *r, const uint8_t *data, size_t size)
{
  const char *p = (const char *) data, *end = p + size, *nl;
  mcp_idscan_t scan;
  const char *id;
  size_t len, id_len = 0;

  while (p < end && (nl = memchr(p, '\n', (size_t) (end - p))) != NULL) {
    len = (size_t) (nl - p);
    if (len <= r->max + 1 && len > 0 && p[len - 1] == '\r')
      len--;
    if (len > r->max) {
      mcp_idscan_init(&scan);
      mcp_idscan_feed(&scan, p, len);
      id = mcp_idscan_id(&scan, &id_len);
      fuzz_log_rec(&r->log, 'O', (uint64_t) len, id, id ? id_len : 0);
    } else if (len > 0) {
      fuzz_log_rec(&r->log, 'M', 0, p, len);
    }
    p = nl + 1;
  }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in_t in = { data, size };
  fuzz_chunks_t chunks;
  run_t whole, split, ref;
  uint8_t limit, seed, most;

  limit = fuzz_byte(&in);
  seed = fuzz_byte(&in);
  most = fuzz_byte(&in);
  memset(&whole, 0, sizeof whole);
  memset(&split, 0, sizeof split);
  memset(&ref, 0, sizeof ref);
  /* Limits of 1 to 128 bytes, or the default 4 MB one. */
  whole.max = limit & 0x80 ? MCP_DEFAULT_MAX_MESSAGE
                           : (size_t) (limit & 0x7F) + 1;
  split.max = ref.max = whole.max;
  fuzz_chunks_init(&chunks, seed, (size_t) (most & 0x3F) + 1);

  run(&whole, in.p, in.n, NULL);
  run(&split, in.p, in.n, &chunks);
  model(&ref, in.p, in.n);
  if (!fuzz_log_same(&whole.log, &ref.log)) {
    fprintf(stderr, "framing: one feed and the model disagree\n");
    abort();
  }
  if (!fuzz_log_same(&split.log, &ref.log)) {
    fprintf(stderr, "framing: chunked feeds and the model disagree\n");
    abort();
  }
  fuzz_log_free(&whole.log);
  fuzz_log_free(&split.log);
  fuzz_log_free(&ref.log);
  return 0;
}
