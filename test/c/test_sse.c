/*
 * test_sse.c - tests for the Server-Sent Events parser (sse.c).
 *
 * Every callback is written to a text log, one line each:
 *   "E <type>|<id>|<has_id>|<data>"  an event (bytes escaped),
 *   "R <ms>"                         a retry field,
 *   "C <text>"                       a comment,
 *   "O <size> <id or ->"             an oversized event,
 * and a run ends with "L <last id>". So a stream fed whole, one byte at a
 * time, or cut at every point can be compared as one string. The memory
 * bound is checked after every feed and inside every callback.
 */
#include <inttypes.h>
#include <stdarg.h>

#include "common.h"
#include "sse.h"
#include "test.h"

#define LOG_SIZE 65536
#define THREE_CUT_MAX 160 /* inputs up to this size are cut in 3 too */

typedef struct rec_s {
  mcp_sse_t p;
  char log[LOG_SIZE];  /* the callbacks so far, one per line */
  size_t log_len;
  int events;          /* callbacks so far */
  int stop_at;         /* stop the feed in this callback (1-based); 0: never */
} rec_t;

/* buf.c starts at 256 bytes and doubles, and no buffer may hold more than
 * max bytes and its NUL: so no capacity may pass this. */
static size_t
cap_bound(size_t max)
{
  size_t bound = 256;

  while (bound < max + 1)
    bound *= 2;
  return bound;
}

static void
check_bound(const mcp_sse_t *p)
{
  size_t bound = cap_bound(p->max);

  ASSERT(p->data.len + p->type.len + p->line.len <= p->max);
  ASSERT(p->id.len <= p->max);
  ASSERT(p->line.cap <= bound);
  ASSERT(p->data.cap <= bound);
  ASSERT(p->type.cap <= bound);
  ASSERT(p->id.cap <= bound);
}

static void
log_printf(rec_t *r, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(r->log + r->log_len, LOG_SIZE - r->log_len, fmt, ap);
  va_end(ap);
  ASSERT(n >= 0 && (size_t) n < LOG_SIZE - r->log_len);
  r->log_len += (size_t) n;
}

/* Logs bytes with '|', '\\' and controls escaped. */
static void
log_bytes(rec_t *r, const char *p, size_t len)
{
  size_t i;

  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char) p[i];

    if (c == '\\' || c == '|' || c < 0x20 || c >= 0x7f)
      log_printf(r, "\\x%02x", c);
    else
      log_printf(r, "%c", c);
  }
}

static void
after_event(rec_t *r)
{
  r->events++;
  if (r->stop_at == r->events)
    mcp_sse_stop(&r->p);
}

static void
on_event(void *ud, const mcp_sse_event_t *ev)
{
  rec_t *r = ud;

  check_bound(&r->p);
  ASSERT_NOT_NULL(ev->type);
  ASSERT_NOT_NULL(ev->data);
  ASSERT_NOT_NULL(ev->id);
  ASSERT(ev->type_len > 0);
  ASSERT_EQ(ev->data[ev->data_len], '\0');
  ASSERT_EQ(ev->has_id, ev->id[0] != '\0');
  ASSERT_STR_EQ(ev->id, mcp_sse_last_id(&r->p));
  log_printf(r, "E ");
  log_bytes(r, ev->type, ev->type_len);
  log_printf(r, "|");
  log_bytes(r, ev->id, strlen(ev->id));
  log_printf(r, "|%d|", ev->has_id);
  log_bytes(r, ev->data, ev->data_len);
  log_printf(r, "\n");
  after_event(r);
}

static void
on_retry(void *ud, uint64_t ms)
{
  rec_t *r = ud;

  check_bound(&r->p);
  ASSERT(r->p.has_retry);
  ASSERT(r->p.retry_ms == ms);
  log_printf(r, "R %" PRIu64 "\n", ms);
  after_event(r);
}

static void
on_comment(void *ud, const char *text, size_t len)
{
  rec_t *r = ud;

  check_bound(&r->p);
  ASSERT_NOT_NULL(text);
  log_printf(r, "C ");
  log_bytes(r, text, len);
  log_printf(r, "\n");
  after_event(r);
}

static void
on_oversize(void *ud, size_t size, const char *id, size_t id_len)
{
  rec_t *r = ud;

  check_bound(&r->p);
  ASSERT(size > r->p.max);
  log_printf(r, "O %zu ", size);
  if (id == NULL) {
    log_printf(r, "-");
  } else {
    ASSERT(id_len > 0);
    log_bytes(r, id, id_len);
  }
  log_printf(r, "\n");
  after_event(r);
}

static const mcp_sse_cb_t callbacks = {on_event, on_retry, on_comment,
                                       on_oversize};

static void
rec_init(rec_t *r, size_t max)
{
  memset(r, 0, sizeof *r);
  mcp_sse_init(&r->p, max, &callbacks, r);
  check_bound(&r->p);
}

static void
feed(rec_t *r, const char *s, size_t len)
{
  ASSERT_EQ(mcp_sse_feed(&r->p, s, len), 0);
  check_bound(&r->p);
}

static void
feed_str(rec_t *r, const char *s)
{
  feed(r, s, strlen(s));
}

/* Appends "L <last id>" to the log. */
static void
log_last_id(rec_t *r)
{
  const char *id = mcp_sse_last_id(&r->p);

  log_printf(r, "L ");
  log_bytes(r, id, strlen(id));
  log_printf(r, "\n");
}

/* Feeds in[0..len) in ncuts + 1 chunks ending at the given offsets, into a
 * fresh parser, and returns the log in out. */
static void
run_cuts(const char *in, size_t len, size_t max, const size_t *cuts,
         int ncuts, char *out)
{
  static rec_t r;
  size_t at = 0;
  int i;

  rec_init(&r, max);
  for (i = 0; i < ncuts; i++) {
    ASSERT(cuts[i] >= at && cuts[i] <= len);
    feed(&r, in + at, cuts[i] - at);
    at = cuts[i];
  }
  feed(&r, in + at, len - at);
  log_last_id(&r);
  mcp_sse_free(&r.p);
  memcpy(out, r.log, r.log_len + 1);
}

static void
run_bytewise(const char *in, size_t len, size_t max, char *out)
{
  size_t *cuts = malloc((len + 1) * sizeof *cuts);
  size_t i;

  ASSERT_NOT_NULL(cuts);
  for (i = 0; i < len; i++)
    cuts[i] = i;
  run_cuts(in, len, max, cuts, (int) len, out);
  free(cuts);
}

/* Asserts that in[0..len) gives the log `want` fed whole, one byte at a
 * time, cut in two at every point and, when short, in three at every pair
 * of points. */
static void
check_all_splits_n(const char *in, size_t len, size_t max, const char *want)
{
  static char got[LOG_SIZE];
  size_t i, j, cuts[2];

  run_cuts(in, len, max, NULL, 0, got);
  ASSERT_STR_EQ(got, want);
  run_bytewise(in, len, max, got);
  ASSERT_STR_EQ(got, want);
  for (i = 0; i <= len; i++) {
    run_cuts(in, len, max, &i, 1, got);
    ASSERT_STR_EQ(got, want);
  }
  if (len > THREE_CUT_MAX)
    return;
  for (i = 0; i <= len; i++) {
    for (j = i; j <= len; j++) {
      cuts[0] = i;
      cuts[1] = j;
      run_cuts(in, len, max, cuts, 2, got);
      ASSERT_STR_EQ(got, want);
    }
  }
}

static void
check_all_splits(const char *in, size_t max, const char *want)
{
  check_all_splits_n(in, strlen(in), max, want);
}

static void
test_default_max(void)
{
  static rec_t r;

  rec_init(&r, 0);
  ASSERT_EQ(r.p.max, MCP_SSE_DEFAULT_MAX_EVENT);
  ASSERT(r.p.max > MCP_DEFAULT_MAX_MESSAGE);
  ASSERT_STR_EQ(mcp_sse_last_id(&r.p), "");
  mcp_sse_free(&r.p);
  rec_init(&r, 77);
  ASSERT_EQ(r.p.max, 77);
  mcp_sse_free(&r.p);
}

static void
test_single_event(void)
{
  check_all_splits("data: hello\n\n", 64, "E message||0|hello\nL \n");
  check_all_splits("", 64, "L \n");
  check_all_splits("\n\n\n", 64, "L \n");
}

static void
test_multiline_data(void)
{
  check_all_splits("data: a\ndata: b\ndata\ndata: c\n\n", 64,
                   "E message||0|a\\x0ab\\x0a\\x0ac\nL \n");
  /* A data field with an empty value still dispatches an event, with
   * empty data; two of them give one '\n'. */
  check_all_splits("data:\n\ndata\ndata\n\n", 64,
                   "E message||0|\nE message||0|\\x0a\nL \n");
  /* A trailing empty data line keeps its '\n' (only the last is removed).
   */
  check_all_splits("data: x\ndata:\n\n", 64, "E message||0|x\\x0a\nL \n");
}

static void
test_event_type(void)
{
  static const char in[] = "event: add\ndata: 1\n\n"
                           "data: 2\n\n"
                           "event:\ndata: 3\n\n"
                           "event: a\nevent: b\ndata: 4\n\n"
                           "event: x\0y\ndata: 5\n\n";

  /* The type applies to one event only; an empty one means "message";
   * the last one wins; a NUL in it is kept. */
  check_all_splits_n(in, sizeof in - 1, 64,
                     "E add||0|1\n"
                     "E message||0|2\n"
                     "E message||0|3\n"
                     "E b||0|4\n"
                     "E x\\x00y||0|5\n"
                     "L \n");
}

static void
test_id_persistence_and_reset(void)
{
  check_all_splits("id: 1\ndata: a\n\n"
                   "data: b\n\n"
                   "id\ndata: c\n\n"
                   "id: 2\n\n"
                   "data: d\n\n"
                   "id:\ndata: e\n\n"
                   "id: 3\n",
                   64,
                   "E message|1|1|a\n"
                   "E message|1|1|b\n"
                   "E message||0|c\n"
                   "E message|2|1|d\n"
                   "E message||0|e\n"
                   "L 3\n");
  /* The id may follow the data within the event. */
  check_all_splits("data: a\nid: 7\n\n", 64, "E message|7|1|a\nL 7\n");
}

static void
test_id_with_nul_ignored(void)
{
  static const char in[] = "id: 5\ndata: a\n\nid: 6\0x\ndata: b\n\n"
                           "id: \0\ndata: c\n\n";

  check_all_splits_n(in, sizeof in - 1, 64,
                     "E message|5|1|a\n"
                     "E message|5|1|b\n"
                     "E message|5|1|c\n"
                     "L 5\n");
}

static void
test_retry(void)
{
  static rec_t r;

  /* Only ASCII digits count; "12a", "", "-1", " 5" (two spaces before it)
   * and "1.5" are ignored. A huge value saturates. */
  check_all_splits("retry: 3000\nretry: 12a\nretry:\nretry\nretry: -1\n"
                   "retry:  5\nretry: 1.5\nretry: 007\nretry:0\n"
                   "retry: 99999999999999999999999\ndata: x\n\n",
                   128,
                   "R 3000\nR 7\nR 0\nR 18446744073709551615\n"
                   "E message||0|x\nL \n");
  rec_init(&r, 64);
  feed_str(&r, "retry: 12a\n");
  ASSERT_EQ(r.p.has_retry, 0);
  feed_str(&r, "retry: 250\n\n");
  ASSERT_EQ(r.p.has_retry, 1);
  ASSERT(r.p.retry_ms == 250);
  feed_str(&r, "retry: 12a\n");
  ASSERT(r.p.retry_ms == 250);
  /* The reconnection time belongs to the stream: a reset keeps it. */
  mcp_sse_reset(&r.p);
  ASSERT(r.p.retry_ms == 250);
  ASSERT_STR_EQ(r.log, "R 250\n");
  mcp_sse_free(&r.p);
}

static void
test_comments(void)
{
  check_all_splits(": keep-alive\n:\n:x\r\ndata: a\n: mid\ndata: b\n\n"
                   ":\n\n",
                   64,
                   "C  keep-alive\nC \nC x\nC  mid\n"
                   "E message||0|a\\x0ab\nC \nL \n");
}

static void
test_comment_without_callback(void)
{
  static rec_t r;
  mcp_sse_cb_t cb = callbacks;

  /* Optional callbacks may be NULL. */
  memset(&r, 0, sizeof r);
  cb.on_comment = NULL;
  cb.on_retry = NULL;
  cb.on_oversize = NULL;
  mcp_sse_init(&r.p, 16, &cb, &r);
  feed_str(&r, ": ping\nretry: 5\ndata: a\n\n"
               "data: 0123456789abcdef\n\ndata: b\n\n");
  ASSERT_STR_EQ(r.log, "E message||0|a\nE message||0|b\n");
  ASSERT(r.p.retry_ms == 5);
  mcp_sse_free(&r.p);
}

static void
test_bom(void)
{
  check_all_splits("\xEF\xBB\xBF" "data: a\n\n", 64, "E message||0|a\nL \n");
  check_all_splits("\xEF\xBB\xBF", 64, "L \n");
  check_all_splits("\xEF\xBB\xBF\n" "data: a\n\n", 64, "E message||0|a\nL \n");
  /* Only one BOM is skipped: a second one is part of the field name. */
  check_all_splits("\xEF\xBB\xBF\xEF\xBB\xBF" "data: a\n\ndata: b\n\n", 64,
                   "E message||0|b\nL \n");
  /* A BOM later in the stream is data, or part of a field name. */
  check_all_splits("data: \xEF\xBB\xBF" "a\n\n", 64,
                   "E message||0|\\xef\\xbb\\xbfa\nL \n");
  check_all_splits("data: x\n\n\xEF\xBB\xBF" "data: y\n\n", 64,
                   "E message||0|x\nL \n");
  /* A partial BOM is not skipped: its bytes stay in the line. */
  check_all_splits("\xEF\xBB" "data: a\n\ndata: b\n\n", 64,
                   "E message||0|b\nL \n");
  check_all_splits("\xEF\n" "data: a\n\n", 64, "E message||0|a\nL \n");
  check_all_splits("\xEF\xBB\xBE:c\n", 64, "L \n");
  /* The kept bytes count against the limit; a skipped BOM does not. */
  check_all_splits("\xEF\xBBxyz\n\n", 4, "O 5 -\nL \n");
  check_all_splits("\xEF\xBB\xBFxyz\n\n", 4, "L \n");
}

static void
test_line_endings(void)
{
  const char *want = "E message|1|1|a\\x0ab\nE t|1|1|c\nL 1\n";

  check_all_splits("id: 1\ndata: a\ndata: b\n\nevent: t\ndata: c\n\n", 64,
                   want);
  check_all_splits("id: 1\r\ndata: a\r\ndata: b\r\n\r\nevent: t\r\n"
                   "data: c\r\n\r\n",
                   64, want);
  check_all_splits("id: 1\rdata: a\rdata: b\r\revent: t\rdata: c\r\r", 64,
                   want);
  check_all_splits("id: 1\rdata: a\r\ndata: b\n\revent: t\r\ndata: c\n\r\n",
                   64, want);
  /* LF CR is two line endings; CR CR LF is a line ending then a CRLF. */
  check_all_splits("data: a\rdata: b\r\n\ndata: c\n\rdata: d\r\r\n"
                   "data: e\r\n\n",
                   64,
                   "E message||0|a\\x0ab\nE message||0|c\nE message||0|d\n"
                   "E message||0|e\nL \n");
}

static void
test_cr_at_chunk_end(void)
{
  static rec_t r;

  rec_init(&r, 64);
  feed_str(&r, "data: a\r");
  feed_str(&r, "\ndata: b\r");
  ASSERT_EQ(r.events, 0);
  /* This LF completes the CRLF above: it is not a blank line. */
  feed_str(&r, "\n");
  ASSERT_EQ(r.events, 0);
  feed_str(&r, "\r");
  ASSERT_STR_EQ(r.log, "E message||0|a\\x0ab\n");
  feed_str(&r, "\n");
  feed_str(&r, "\n");
  ASSERT_EQ(r.events, 1);
  /* A CR followed by anything else ends the line alone. */
  feed_str(&r, "data: c\r");
  feed_str(&r, "\r");
  ASSERT_STR_EQ(r.log, "E message||0|a\\x0ab\nE message||0|c\n");
  feed_str(&r, "data: d\r");
  feed_str(&r, "data: e\r\r");
  ASSERT_STR_EQ(r.log, "E message||0|a\\x0ab\nE message||0|c\n"
                       "E message||0|d\\x0ae\n");
  mcp_sse_free(&r.p);
}

static void
test_field_without_colon(void)
{
  check_all_splits("data\n\n", 64, "E message||0|\nL \n");
  check_all_splits("id: 4\nevent: t\nevent\nid\ndata: x\n\n", 64,
                   "E message||0|x\nL \n");
  check_all_splits("foo\ndata: y\nbar: z\nDATA: w\ndata : v\n\n", 64,
                   "E message||0|y\nL \n");
}

static void
test_no_space_after_colon(void)
{
  check_all_splits("data:a\nevent:t\nid:7\nretry:9\n\n", 64,
                   "R 9\nE t|7|1|a\nL 7\n");
  check_all_splits("data::x\n\n", 64, "E message||0|:x\nL \n");
}

static void
test_two_spaces_after_colon(void)
{
  check_all_splits("data:  a\nevent:  t\nid:  7\n\n", 64,
                   "E  t| 7|1| a\nL  7\n");
  check_all_splits("data: \tb \ndata: \n\n", 64,
                   "E message||0|\\x09b \\x0a\nL \n");
}

static void
test_dataless_event_not_dispatched(void)
{
  /* The event type is dropped with the empty event; the id is kept. */
  check_all_splits("event: foo\n\ndata: x\n\n", 64, "E message||0|x\nL \n");
  check_all_splits("event: foo\nid: 3\nretry: 5\n: c\n\n\n\n", 64,
                   "R 5\nC  c\nL 3\n");
}

static void
test_partial_event_at_end(void)
{
  check_all_splits("data: x\n", 64, "L \n");
  check_all_splits("data: x", 64, "L \n");
  check_all_splits("data: x\r", 64, "L \n");
  check_all_splits("data: x\n\ndata: y\n", 64, "E message||0|x\nL \n");
  /* The CR after LF is a blank line of its own. */
  check_all_splits("data: x\n\r", 64, "E message||0|x\nL \n");
}

static void
test_oversize(void)
{
  /* max 32. The json line is 50 bytes, held nothing before it. The long
   * event: type "big" (3) + "0123456789\n" (11) = 14, then the second
   * data line fits (30), the third (16) makes 41 > 32; then ": comment"
   * (9), "id: 10" (6) and "data: z" (7) are discarded too: 63. Its id
   * line is not applied. */
  check_all_splits("data: small\n\n"
                   "id: 9\n"
                   "data: {\"jsonrpc\":\"2.0\",\"id\":42,"
                   "\"result\":{\"p\":\"x\"}}\n\n"
                   "data: after\n\n"
                   "event: big\ndata: 0123456789\ndata: 0123456789\n"
                   "data: 0123456789\n: comment\nid: 10\ndata: z\n\n"
                   "data: next\r\n\r\n",
                   32,
                   "E message||0|small\n"
                   "O 50 42\n"
                   "E message|9|1|after\n"
                   "O 63 -\n"
                   "E message|9|1|next\n"
                   "L 9\n");
}

static void
test_oversize_exact_limit(void)
{
  /* "data: " + 26 bytes is exactly 32: kept. One more byte is not. With
   * a 1-byte type, the line may have 31 bytes. */
  check_all_splits("data: abcdefghijklmnopqrstuvwxyz\n\n"
                   "data: abcdefghijklmnopqrstuvwxyz!\n\n"
                   "event: e\ndata: abcdefghijklmnopqrstuvwxy\n\n"
                   "event: e\ndata: abcdefghijklmnopqrstuvwxyz\n\n",
                   32,
                   "E message||0|abcdefghijklmnopqrstuvwxyz\n"
                   "O 33 -\n"
                   "E e||0|abcdefghijklmnopqrstuvwxy\n"
                   "O 33 -\n"
                   "L \n");
}

static void
test_oversize_id_scan(void)
{
  /* The id is found in data split over several lines, also when it comes
   * after the line that went over, and with CRLF and no space after ':'.
   * Sizes: the data held 18 bytes, the line that went over has 33 and
   * the next one 14: 65. */
  check_all_splits("data: {\"jsonrpc\":\"2.0\",\r\n"
                   "data: \"pad\":\"qqqqqqqqqqqqqqqqqq\",\r\n"
                   "data:\"id\":\"k\"}\r\n\r\n"
                   "data: {\"id\":1}\r\n\r\n",
                   32,
                   "O 65 \"k\"\nE message||0|{\"id\":1}\nL \n");
  /* Only data values are scanned: an "id" in another field is not.
   * Sizes: data 8, type 8, then a 40-byte line: 56. */
  check_all_splits("data: {\"a\":1,\nevent: {\"id\":3}\n"
                   "data: \"x\":\"yyyyyyyyyyyyyyyyyyyyyyyyyyy\"}\n\n",
                   32, "O 56 -\nL \n");
  /* A long comment counts against the event too: data 9 + 30. */
  check_all_splits("data: {\"id\":5}\n: 0123456789012345678901234567\n\n"
                   "data: ok\n\n",
                   32, "O 39 5\nE message||0|ok\nL \n");
}

static void
test_oversize_at_end_not_reported(void)
{
  check_all_splits("data: 0123456789012345678901234567890123456789\n", 32,
                   "L \n");
  check_all_splits("data: 0123456789012345678901234567890123456789", 32,
                   "L \n");
}

static void
test_oversize_huge(void)
{
  static char in[8000], want[128];
  size_t n = 0, i;

  /* Far over the limit, in long and short lines: memory stays bounded
   * (check_bound runs after every feed) and the size counts every byte. */
  memcpy(in, "data: ", 6);
  n = 6;
  for (i = 0; i < 2000; i++)
    in[n++] = 'q';
  for (i = 0; i < 300; i++) {
    memcpy(in + n, "\ndata: z", 8);
    n += 8;
  }
  memcpy(in + n, "\n\ndata: [1]\n\n", 14);
  snprintf(want, sizeof want, "O %zu -\nE message||0|[1]\nL \n",
           (size_t) 2006 + 300 * 7);
  check_all_splits_n(in, strlen(in), 100, want);
}

static void
test_memory_bound(void)
{
  static rec_t r;
  static char big[40000];
  size_t maxes[] = {1, 16, 255, 256, 1000, 1023, 1024, 5000};
  size_t k, i;

  for (k = 0; k < sizeof maxes / sizeof maxes[0]; k++) {
    size_t max = maxes[k];
    size_t len = 3 * max + 600;

    rec_init(&r, max);
    /* A long data line, byte by byte then whole. */
    feed_str(&r, "data: ");
    for (i = 0; i < len; i++)
      feed(&r, "x", 1);
    feed_str(&r, "\n\n");
    memset(big, 'y', len);
    feed(&r, big, len);
    feed_str(&r, "\n\n");
    /* Many short data lines; long id, event and comment lines. */
    for (i = 0; i < len; i++)
      feed_str(&r, "data: 1\n");
    feed_str(&r, "\n");
    for (i = 0; i < 3; i++) {
      const char *field[] = {"id: ", "event: ", ": "};

      feed_str(&r, field[i]);
      feed(&r, big, len);
      feed_str(&r, "\n\n");
    }
    ASSERT_EQ(r.events, 6);
    /* An event of exactly max bytes, split in two, is still delivered. */
    if (max >= 16) {
      size_t before = r.log_len;

      feed_str(&r, "data:");
      feed(&r, big, (max - 5) / 2);
      feed(&r, big, max - 5 - (max - 5) / 2);
      ASSERT_EQ(r.p.line.len, max);
      feed_str(&r, "\n");
      ASSERT_EQ(r.p.data.len, max - 4);
      feed_str(&r, "\n");
      ASSERT_EQ(r.events, 7);
      ASSERT(r.log[before] == 'E');
      /* And an id of max - 4 bytes is kept. */
      feed_str(&r, "id: ");
      feed(&r, big, max - 4);
      feed_str(&r, "\n");
      ASSERT_EQ(r.p.id.len, max - 4);
    }
    ASSERT(r.p.line.cap <= cap_bound(max));
    mcp_sse_free(&r.p);
  }
}

static void
test_stop_from_on_event(void)
{
  static rec_t r;

  /* The events after the stop in this chunk are not parsed... */
  rec_init(&r, 64);
  r.stop_at = 1;
  ASSERT_EQ(mcp_sse_feed(&r.p, "data: a\n\ndata: b\n\n", 18), 0);
  ASSERT_STR_EQ(r.log, "E message||0|a\n");
  /* ...and the next feed runs normally. */
  feed_str(&r, "data: c\n\n");
  ASSERT_STR_EQ(r.log, "E message||0|a\nE message||0|c\n");
  mcp_sse_free(&r.p);

  /* Stopping on a CR-ended blank line keeps the pending CRLF state, and
   * an event completed from the line buffer is reset properly. */
  rec_init(&r, 64);
  r.stop_at = 1;
  feed_str(&r, "event: t\ndata: a");
  feed_str(&r, "\r\rdata: b\n\n");
  ASSERT_STR_EQ(r.log, "E t||0|a\n");
  feed_str(&r, "\ndata: c\n\n");
  ASSERT_STR_EQ(r.log, "E t||0|a\nE message||0|c\n");
  ASSERT_EQ(r.p.line.len, 0);
  mcp_sse_free(&r.p);
}

static void
test_stop_from_other_callbacks(void)
{
  static rec_t r;

  rec_init(&r, 16);
  r.stop_at = 1;
  feed_str(&r, ": one\n: two\n");
  ASSERT_STR_EQ(r.log, "C  one\n");
  r.stop_at = 2;
  feed_str(&r, "retry: 1\nretry: 2\n");
  ASSERT_STR_EQ(r.log, "C  one\nR 1\n");
  r.stop_at = 3;
  feed_str(&r, "data: 0123456789abcdef\n\ndata: x\n\n");
  ASSERT_STR_EQ(r.log, "C  one\nR 1\nO 22 -\n");
  feed_str(&r, "data: y\n\n");
  ASSERT_STR_EQ(r.log, "C  one\nR 1\nO 22 -\nE message||0|y\n");
  mcp_sse_free(&r.p);
}

static void
test_reset_keeps_last_id(void)
{
  static rec_t r;

  rec_init(&r, 32);
  feed_str(&r, "\xEF\xBB\xBFid: 7\ndata: a\n\nevent: t\ndata: partial\r");
  ASSERT_STR_EQ(mcp_sse_last_id(&r.p), "7");
  /* The connection drops: the partial event and the pending CRLF go,
   * the id stays, and a BOM is skipped again at the new start. */
  mcp_sse_reset(&r.p);
  ASSERT_EQ(r.p.line.len + r.p.data.len + r.p.type.len, 0);
  ASSERT_STR_EQ(mcp_sse_last_id(&r.p), "7");
  ASSERT_EQ(r.p.skip_lf, 0);
  feed_str(&r, "\xEF\xBB");
  feed_str(&r, "\xBF" "data: b\n\n");
  ASSERT_STR_EQ(r.log, "E message|7|1|a\nE message|7|1|b\n");
  /* A reset in the middle of a discarded event ends the discarding
   * silently. */
  feed_str(&r, "id: 8\ndata: 0123456789012345678901234567890\n");
  ASSERT(r.p.discarding);
  mcp_sse_reset(&r.p);
  ASSERT(!r.p.discarding);
  feed_str(&r, "data: c\n\n");
  ASSERT_STR_EQ(r.log, "E message|7|1|a\nE message|7|1|b\n"
                       "E message|8|1|c\n");
  ASSERT_STR_EQ(mcp_sse_last_id(&r.p), "8");
  mcp_sse_free(&r.p);
}

static void
test_mcp_stream(void)
{
  check_all_splits("id: 1\nevent: message\n"
                   "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
                   4096,
                   "E message|1|1|"
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
                   "L 1\n");
  /* A priming event, keep-alives, a notification, then the response. */
  check_all_splits("retry: 1000\r\nid: s1-0\r\ndata:\r\n\r\n"
                   ": ping\r\n\r\n"
                   "id: s1-1\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\","
                   "\"method\":\"notifications/progress\"}\r\n\r\n"
                   "id: s1-2\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r\","
                   "\"result\":{\"content\":[]}}\r\n\r\n",
                   4096,
                   "R 1000\n"
                   "E message|s1-0|1|\n"
                   "C  ping\n"
                   "E message|s1-1|1|{\"jsonrpc\":\"2.0\",\"method\":"
                   "\"notifications/progress\"}\n"
                   "E message|s1-2|1|{\"jsonrpc\":\"2.0\",\"id\":\"r\","
                   "\"result\":{\"content\":[]}}\n"
                   "L s1-2\n");
}

static void
test_large_event_under_limit(void)
{
  static char in[4000], want[LOG_SIZE];
  size_t n, i;

  /* Enough bytes to make every buffer grow past its first 256 bytes. */
  memcpy(in, "event: ", 7);
  n = 7;
  for (i = 0; i < 300; i++)
    in[n++] = 't';
  memcpy(in + n, "\nid: ", 5);
  n += 5;
  for (i = 0; i < 300; i++)
    in[n++] = 'i';
  memcpy(in + n, "\ndata: ", 7);
  n += 7;
  for (i = 0; i < 1500; i++)
    in[n++] = (char) ('a' + i % 26);
  memcpy(in + n, "\n\n", 3);
  n = (size_t) snprintf(want, sizeof want, "E %.300s|%.300s|1|", in + 7,
                        in + 7 + 300 + 5);
  memcpy(want + n, in + 7 + 300 + 5 + 300 + 7, 1500);
  n += 1500;
  snprintf(want + n, sizeof want - n, "\nL %.300s\n", in + 7 + 300 + 5);
  check_all_splits(in, 2200, want);
}

int
main(void)
{
  RUN_TEST(test_default_max);
  RUN_TEST(test_single_event);
  RUN_TEST(test_multiline_data);
  RUN_TEST(test_event_type);
  RUN_TEST(test_id_persistence_and_reset);
  RUN_TEST(test_id_with_nul_ignored);
  RUN_TEST(test_retry);
  RUN_TEST(test_comments);
  RUN_TEST(test_comment_without_callback);
  RUN_TEST(test_bom);
  RUN_TEST(test_line_endings);
  RUN_TEST(test_cr_at_chunk_end);
  RUN_TEST(test_field_without_colon);
  RUN_TEST(test_no_space_after_colon);
  RUN_TEST(test_two_spaces_after_colon);
  RUN_TEST(test_dataless_event_not_dispatched);
  RUN_TEST(test_partial_event_at_end);
  RUN_TEST(test_oversize);
  RUN_TEST(test_oversize_exact_limit);
  RUN_TEST(test_oversize_id_scan);
  RUN_TEST(test_oversize_at_end_not_reported);
  RUN_TEST(test_oversize_huge);
  RUN_TEST(test_memory_bound);
  RUN_TEST(test_stop_from_on_event);
  RUN_TEST(test_stop_from_other_callbacks);
  RUN_TEST(test_reset_keeps_last_id);
  RUN_TEST(test_mcp_stream);
  RUN_TEST(test_large_event_under_limit);
  TEST_DONE();
}
