/*
 * fuzz_sse.c - libFuzzer harness for the Server-Sent Events parser
 * (src/core/sse.c), whose input is whatever an HTTP server streams.
 *
 * Input: byte 0 picks the event limit (tiny limits reach the oversize
 * paths), byte 1 seeds the chunk sizes, byte 2 bounds them; the rest is
 * the stream. It is parsed twice, in one feed and in chunks, and both
 * runs must report the same events, retries, comments and oversize
 * reports in the same order; each report is checked against sse.h.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "sse.h"

typedef struct run_s {
  fuzz_log_t log;
  size_t max;
} run_t;

static void
on_event(void *ud, const mcp_sse_event_t *ev)
{
  run_t *r = ud;

  FUZZ_CHECK(ev->type != NULL && ev->data != NULL && ev->id != NULL);
  FUZZ_CHECK(ev->type_len > 0);
  FUZZ_CHECK(ev->data[ev->data_len] == '\0');
  /* The data buffer held each value and a '\n', the type its own bytes:
   * together at most the limit. */
  FUZZ_CHECK(ev->data_len + 1 + ev->type_len <= r->max ||
             (ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0 &&
              ev->data_len + 1 <= r->max));
  FUZZ_CHECK(ev->has_id == (ev->id[0] != '\0'));
  FUZZ_CHECK(strlen(ev->id) <= r->max);
  fuzz_log_rec(&r->log, 'E', (uint64_t) ev->has_id, ev->type, ev->type_len);
  fuzz_log_rec(&r->log, 'D', 0, ev->data, ev->data_len);
  fuzz_log_rec(&r->log, 'I', 0, ev->id, strlen(ev->id));
}

static void
on_retry(void *ud, uint64_t ms)
{
  run_t *r = ud;

  fuzz_log_rec(&r->log, 'R', ms, NULL, 0);
}

static void
on_comment(void *ud, const char *text, size_t len)
{
  run_t *r = ud;

  FUZZ_CHECK(text != NULL);
  fuzz_log_rec(&r->log, 'C', 0, text, len);
}

static void
on_oversize(void *ud, size_t size, const char *id, size_t id_len)
{
  run_t *r = ud;

  FUZZ_CHECK(size > r->max);
  FUZZ_CHECK(id == NULL || (id_len > 0 && id_len < 64));
  fuzz_log_rec(&r->log, 'O', (uint64_t) size, id, id != NULL ? id_len : 0);
}

static const mcp_sse_cb_t callbacks = { on_event, on_retry, on_comment,
                                        on_oversize };

/* Parses the stream, in one feed when chunks is NULL. */
static void
run(run_t *r, const uint8_t *data, size_t size, fuzz_chunks_t *chunks)
{
  mcp_sse_t p;
  size_t at = 0, n;

  mcp_sse_init(&p, r->max, &callbacks, r);
  if (chunks == NULL) {
    FUZZ_CHECK(mcp_sse_feed(&p, (const char *) data, size) == 0);
  } else {
    while (at < size) {
      n = fuzz_chunks_next(chunks);
      if (n > size - at)
        n = size - at;
      FUZZ_CHECK(mcp_sse_feed(&p, (const char *) data + at, n) == 0);
      at += n;
    }
  }
  /* The last id is a C string whatever the stream held. */
  FUZZ_CHECK(strlen(mcp_sse_last_id(&p)) <= r->max);
  mcp_sse_free(&p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in_t in = { data, size };
  fuzz_chunks_t chunks;
  run_t whole, split;
  uint8_t limit, seed, most;

  limit = fuzz_byte(&in);
  seed = fuzz_byte(&in);
  most = fuzz_byte(&in);
  memset(&whole, 0, sizeof whole);
  memset(&split, 0, sizeof split);
  /* Limits of 1 to 128 bytes, or the default-sized 4 MB one. */
  whole.max = limit & 0x80 ? 0 : (size_t) (limit & 0x7F) + 1;
  if (whole.max == 0)
    whole.max = MCP_SSE_DEFAULT_MAX_EVENT;
  split.max = whole.max;
  fuzz_chunks_init(&chunks, seed, (size_t) (most & 0x3F) + 1);

  run(&whole, in.p, in.n, NULL);
  run(&split, in.p, in.n, &chunks);
  if (!fuzz_log_same(&whole.log, &split.log)) {
    fprintf(stderr, "sse: one feed and chunked feeds disagree\n");
    abort();
  }
  fuzz_log_free(&whole.log);
  fuzz_log_free(&split.log);
  return 0;
}
