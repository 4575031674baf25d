/*
 * test_framing.c - tests for newline-delimited framing (framing.c).
 *
 * Every callback is written to a text log ("M <line>" for a message,
 * "O <size> <id>" for an oversized line), so a stream fed whole, one byte
 * at a time, or cut at every point can be compared as one string. The
 * memory bound (line.len <= max, line.cap within one growth step of max + 1)
 * is checked after every feed and inside every callback.
 */
#include <stdarg.h>

#include "common.h"
#include "framing.h"
#include "test.h"

#define LOG_SIZE 65536

typedef struct rec_s {
  mcp_framing_t f;
  char log[LOG_SIZE];  /* the callbacks so far, one per line */
  size_t log_len;
  int events;          /* callbacks so far */
  int stop_at;         /* stop the feed in this callback (1-based); 0: never */
} rec_t;

static void
check_bound(const mcp_framing_t *f)
{
  size_t bound = 256; /* buf.c starts at 256 bytes and doubles */

  while (bound < f->max + 2) /* max, a '\r' and the NUL */
    bound *= 2;
  ASSERT(f->line.len <= f->max + 1); /* max bytes and a '\r' */
  ASSERT(f->line.cap <= bound);
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

/* Logs bytes with '\r', '\n', '\\' and other controls escaped. */
static void
log_bytes(rec_t *r, const char *p, size_t len)
{
  size_t i;

  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char) p[i];

    if (c == '\\')
      log_printf(r, "\\\\");
    else if (c < 0x20 || c >= 0x7f)
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
    mcp_framing_stop(&r->f);
}

static void
on_message(void *ud, const char *line, size_t len)
{
  rec_t *r = ud;

  ASSERT_NOT_NULL(line);
  ASSERT(len > 0);
  ASSERT(len <= r->f.max);
  ASSERT_NULL(memchr(line, '\n', len));
  check_bound(&r->f);
  log_printf(r, "M ");
  log_bytes(r, line, len);
  log_printf(r, "\n");
  after_event(r);
}

static void
on_oversize(void *ud, size_t size, const char *id, size_t id_len)
{
  rec_t *r = ud;

  ASSERT(size > r->f.max);
  check_bound(&r->f);
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

static const mcp_framing_cb_t callbacks = {on_message, on_oversize};

static void
rec_init(rec_t *r, size_t max)
{
  memset(r, 0, sizeof *r);
  mcp_framing_init(&r->f, max, &callbacks, r);
  check_bound(&r->f);
}

static void
feed(rec_t *r, const char *p, size_t len)
{
  ASSERT_EQ(mcp_framing_feed(&r->f, p, len), 0);
  check_bound(&r->f);
}

static void
feed_str(rec_t *r, const char *s)
{
  feed(r, s, strlen(s));
}

/* Feeds in[0..len) in ncuts + 1 chunks ending at the given offsets, into a
 * fresh framer, and returns the log in out. */
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
  mcp_framing_free(&r.f);
  memcpy(out, r.log, r.log_len + 1);
}

static void
run_whole(const char *in, size_t len, size_t max, char *out)
{
  run_cuts(in, len, max, NULL, 0, out);
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

/* Asserts that in gives the log `want` whole, one byte at a time, and cut
 * into two chunks at every point. */
static void
check_all_splits(const char *in, size_t len, size_t max, const char *want)
{
  static char got[LOG_SIZE];
  size_t i;

  run_whole(in, len, max, got);
  ASSERT_STR_EQ(got, want);
  run_bytewise(in, len, max, got);
  ASSERT_STR_EQ(got, want);
  for (i = 0; i <= len; i++) {
    run_cuts(in, len, max, &i, 1, got);
    ASSERT_STR_EQ(got, want);
  }
}

/* Returns a JSON line of exactly n bytes: {"id":<id>,"p":"zzz..."}. */
static char *
line_of(size_t n, const char *id)
{
  char *s = malloc(n + 1);
  int head;

  ASSERT_NOT_NULL(s);
  head = snprintf(s, n + 1, "{\"id\":%s,\"p\":\"", id);
  ASSERT(head > 0 && (size_t) head + 2 <= n);
  memset(s + head, 'z', n - (size_t) head - 2);
  memcpy(s + n - 2, "\"}", 3);
  ASSERT_EQ(strlen(s), n);
  return s;
}

static void
test_default_max(void)
{
  static rec_t r;

  rec_init(&r, 0);
  ASSERT_EQ(r.f.max, MCP_DEFAULT_MAX_MESSAGE);
  ASSERT_EQ(r.f.line.max, MCP_DEFAULT_MAX_MESSAGE + 1); /* room for a '\r' */
  mcp_framing_free(&r.f);
  rec_init(&r, 77);
  ASSERT_EQ(r.f.max, 77);
  ASSERT_EQ(r.f.line.max, 78);
  mcp_framing_free(&r.f);
}

static void
test_several_messages_all_splits(void)
{
  enum { MAX = 64 };
  static char in[4096], want[LOG_SIZE];
  char *exact = line_of(MAX, "4");
  char *over = line_of(MAX + 1, "5");
  const char *big_first =
      "{\"id\":2,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}";
  const char *big_last =
      "{\"result\":{\"id\":1,\"pad\":\"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"},"
      "\"jsonrpc\":\"2.0\",\"id\":7}";
  const char *big_str =
      "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"error\":{\"code\":-1,\"message\":"
      "\"wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww\"}}";
  const char *big_noid =
      "{\"method\":\"n\",\"params\":{\"id\":3,\"t\":\"vvvvvvvvvvvvvvvvvvvvvvv"
      "vvvvvvvvvvvvvvvvvvvvvv\"}}";
  int n;

  ASSERT(strlen(big_first) > MAX && strlen(big_last) > MAX);
  ASSERT(strlen(big_str) > MAX && strlen(big_noid) > MAX);
  n = snprintf(in, sizeof in,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
               "\n"
               "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\r\n"
               "\r\n"
               "%s\n"
               "%s\n"
               "{\"a\":1}\n"
               "%s\n"
               "%s\n"
               "%s\n"
               "%s\n"
               "{\"id\":3}\n"
               "\n\n"
               "{\"tail\":1}",
               big_first, big_last, big_str, big_noid, exact, over);
  ASSERT(n > 0 && (size_t) n < sizeof in);
  n = snprintf(want, sizeof want,
               "M {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
               "M {\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n"
               "O %zu 2\n"
               "O %zu 7\n"
               "M {\"a\":1}\n"
               "O %zu \"abc\"\n"
               "O %zu -\n"
               "M %s\n"
               "O %zu 5\n"
               "M {\"id\":3}\n",
               strlen(big_first), strlen(big_last), strlen(big_str),
               strlen(big_noid), exact, strlen(over));
  ASSERT(n > 0 && (size_t) n < sizeof want);
  check_all_splits(in, strlen(in), MAX, want);
  free(exact);
  free(over);
}

static void
test_three_chunk_splits(void)
{
  enum { MAX = 16 };
  const char *in = "{\"id\":1}\r\n\n{\"a\":\"0123456789\",\"id\":22}\n"
                   "abcdefghijklmnop\nabcdefghijklmnopq\n{\"id\":\"x\"}\n";
  const char *want = "M {\"id\":1}\n"
                     "O 26 22\n"
                     "M abcdefghijklmnop\n"
                     "O 17 -\n"
                     "M {\"id\":\"x\"}\n";
  static char got[LOG_SIZE];
  size_t len = strlen(in), i, j, cuts[2];

  run_whole(in, len, MAX, got);
  ASSERT_STR_EQ(got, want);
  for (i = 0; i <= len; i++) {
    for (j = i; j <= len; j++) {
      cuts[0] = i;
      cuts[1] = j;
      run_cuts(in, len, MAX, cuts, 2, got);
      ASSERT_STR_EQ(got, want);
    }
  }
}

static void
test_crlf_and_blank_lines(void)
{
  const char *in = "\n\r\n\n\r\na\r\nb\n\r\nc\r\r\nd\re\n \n";
  /* Only one trailing '\r' is removed; a '\r' elsewhere is data, and a
   * line holding only a space is not blank. */
  const char *want = "M a\nM b\nM c\\x0d\nM d\\x0de\nM  \n";

  check_all_splits(in, strlen(in), 32, want);
  check_all_splits("\n\n\r\n\r\n", 6, 32, "");
  check_all_splits("", 0, 32, "");
}

static void
test_crlf_at_exact_max(void)
{
  /* A message of exactly max bytes sent with CRLF is delivered: its '\r'
   * does not count against the limit. */
  const char *in = "abcdefghijklmnop\r\n"
                   "abcdefghijklmnop\rX\n"
                   "abcdefghijklmno\r\r\n"
                   "[1]\n"
                   "abcdefghijklmnop\r";
  const char *want = "M abcdefghijklmnop\n"
                     "O 18 -\n"
                     "M abcdefghijklmno\\x0d\n"
                     "M [1]\n";

  check_all_splits(in, strlen(in), 16, want);
}

static void
test_partial_line_waits(void)
{
  static rec_t r;

  rec_init(&r, 32);
  feed_str(&r, "{\"a\":");
  ASSERT_EQ(r.events, 0);
  ASSERT_EQ(r.f.line.len, 5);
  feed_str(&r, "1}");
  ASSERT_EQ(r.events, 0);
  feed_str(&r, "\r");
  ASSERT_EQ(r.events, 0);
  feed_str(&r, "\n{\"b\"");
  ASSERT_STR_EQ(r.log, "M {\"a\":1}\n");
  ASSERT_EQ(r.f.line.len, 4);
  feed_str(&r, ":2}\n");
  ASSERT_STR_EQ(r.log, "M {\"a\":1}\nM {\"b\":2}\n");
  ASSERT_EQ(r.f.line.len, 0);
  mcp_framing_free(&r.f);
}

static void
test_nul_bytes_are_data(void)
{
  const char in[] = "a\0b\n\0\n";

  check_all_splits(in, sizeof in - 1, 8, "M a\\x00b\nM \\x00\n");
}

static void
test_exact_max_and_one_over(void)
{
  static char in[16384], want[LOG_SIZE];
  size_t maxes[] = {20, 255, 256, 1000, 1024, 3000};
  size_t k;
  int n;

  for (k = 0; k < sizeof maxes / sizeof maxes[0]; k++) {
    size_t max = maxes[k];
    char *exact = line_of(max, "\"e\"");
    char *over = line_of(max + 1, "\"o\"");
    static char got[LOG_SIZE];

    n = snprintf(in, sizeof in, "%s\n%s\n%s\n", over, exact, exact);
    ASSERT(n > 0 && (size_t) n < sizeof in);
    n = snprintf(want, sizeof want, "O %zu \"o\"\nM %s\nM %s\n", max + 1,
                 exact, exact);
    ASSERT(n > 0 && (size_t) n < sizeof want);
    run_whole(in, strlen(in), max, got);
    ASSERT_STR_EQ(got, want);
    run_bytewise(in, strlen(in), max, got);
    ASSERT_STR_EQ(got, want);
    free(exact);
    free(over);
  }
}

static void
test_oversize_reported_at_newline(void)
{
  static rec_t r;

  rec_init(&r, 8);
  /* Ten bytes: more than max and its '\r' allowance, so not kept. */
  feed_str(&r, "{\"id\":12 ,");
  ASSERT_EQ(r.events, 0);
  ASSERT_EQ(r.f.line.len, 0);
  feed_str(&r, "\"pad\":\"xxxxxxxxxxxx\"}");
  ASSERT_EQ(r.events, 0);
  feed_str(&r, "\nok\n");
  ASSERT_STR_EQ(r.log, "O 31 12\nM ok\n");
  /* The id may come in a later chunk than the one that went over. */
  feed_str(&r, "{\"method\":\"x\",\"params\":{\"id\":1},");
  feed_str(&r, "\"id\":\"abc\"}");
  feed_str(&r, "\n");
  ASSERT_STR_EQ(r.log, "O 31 12\nM ok\nO 43 \"abc\"\n");
  /* A line that goes over while partly buffered keeps the buffered id. */
  feed_str(&r, "{\"id\":9");
  ASSERT_EQ(r.f.line.len, 7);
  feed_str(&r, "9,\"x\":1}\nend\n");
  ASSERT_STR_EQ(r.log, "O 31 12\nM ok\nO 43 \"abc\"\nO 15 99\nM end\n");
  mcp_framing_free(&r.f);
}

static void
test_oversize_size_counts_every_byte(void)
{
  static char in[20000], want[64];
  size_t n;

  /* A line far over max: its full size is reported, memory stays small. */
  for (n = 0; n < 17000; n++)
    in[n] = 'q';
  memcpy(in + n, "\n[1]\n", 6);
  snprintf(want, sizeof want, "O %zu -\nM [1]\n", n);
  check_all_splits(in, strlen(in), 100, want);
}

static void
test_memory_bound(void)
{
  static rec_t r;
  size_t maxes[] = {1, 255, 256, 1000, 1023, 1024, 5000};
  size_t k, i;

  for (k = 0; k < sizeof maxes / sizeof maxes[0]; k++) {
    size_t max = maxes[k];
    char *line = line_of(max < 16 ? 16 : max, "1");

    rec_init(&r, max);
    /* A long line fed byte by byte, then whole; check_bound runs after
     * every feed and in every callback. */
    for (i = 0; i < 3 * max + 600; i++)
      feed(&r, "x", 1);
    feed(&r, "\n", 1);
    for (i = 0; i < 2; i++) {
      static char big[20000];

      memset(big, 'y', 3 * max + 600);
      feed(&r, big, 3 * max + 600);
      feed(&r, "\n", 1);
    }
    ASSERT_EQ(r.events, 3);
    /* A message of exactly max bytes, split in two, is still kept. */
    if (max >= 16) {
      feed(&r, line, max / 2);
      ASSERT_EQ(r.f.line.len, max / 2);
      feed(&r, line + max / 2, max - max / 2);
      ASSERT_EQ(r.f.line.len, max);
      feed(&r, "\n", 1);
      ASSERT_EQ(r.events, 4);
      ASSERT_EQ(r.f.line.len, 0);
    }
    mcp_framing_free(&r.f);
    free(line);
  }
}

static void
test_stop_from_on_message(void)
{
  static rec_t r;

  /* Lines delivered straight from the caller's bytes. */
  rec_init(&r, 32);
  r.stop_at = 1;
  ASSERT_EQ(mcp_framing_feed(&r.f, "a\nb\nc\n", 6), 0);
  ASSERT_STR_EQ(r.log, "M a\n");
  ASSERT_EQ(r.events, 1);
  /* The next feed runs normally. */
  feed_str(&r, "d\ne\n");
  ASSERT_STR_EQ(r.log, "M a\nM d\nM e\n");
  mcp_framing_free(&r.f);

  /* A line completed from the buffer. */
  rec_init(&r, 32);
  r.stop_at = 2;
  feed_str(&r, "a\nb");
  feed_str(&r, "b\nc\nd\n");
  ASSERT_STR_EQ(r.log, "M a\nM bb\n");
  ASSERT_EQ(r.f.line.len, 0);
  mcp_framing_free(&r.f);
}

static void
test_stop_from_on_oversize(void)
{
  static rec_t r;

  rec_init(&r, 4);
  r.stop_at = 1;
  feed_str(&r, "{\"id\":5}\n[1]\n");
  ASSERT_STR_EQ(r.log, "O 8 5\n");
  feed_str(&r, "[2]\n");
  ASSERT_STR_EQ(r.log, "O 8 5\nM [2]\n");
  mcp_framing_free(&r.f);
}

static void
test_free_and_reinit(void)
{
  static rec_t r;

  rec_init(&r, 16);
  feed_str(&r, "partial");
  ASSERT_EQ(r.f.line.len, 7);
  mcp_framing_free(&r.f);
  ASSERT_NULL(r.f.line.data);
  ASSERT_EQ(r.f.line.len, 0);
  rec_init(&r, 16);
  feed_str(&r, "fresh\n");
  ASSERT_STR_EQ(r.log, "M fresh\n");
  mcp_framing_free(&r.f);
}

int
main(void)
{
  RUN_TEST(test_default_max);
  RUN_TEST(test_several_messages_all_splits);
  RUN_TEST(test_three_chunk_splits);
  RUN_TEST(test_crlf_and_blank_lines);
  RUN_TEST(test_crlf_at_exact_max);
  RUN_TEST(test_partial_line_waits);
  RUN_TEST(test_nul_bytes_are_data);
  RUN_TEST(test_exact_max_and_one_over);
  RUN_TEST(test_oversize_reported_at_newline);
  RUN_TEST(test_oversize_size_counts_every_byte);
  RUN_TEST(test_memory_bound);
  RUN_TEST(test_stop_from_on_message);
  RUN_TEST(test_stop_from_on_oversize);
  RUN_TEST(test_free_and_reinit);
  TEST_DONE();
}
