/*
 * test_buf.c - tests for the bounded byte buffer (buf.c): growth, the
 * MCP_ETOOBIG limit (which must leave the buffer untouched), consume, reset
 * and free.
 */
#include <stdint.h>

#include "buf.h"
#include "common.h"
#include "test.h"

static void
test_init_empty(void)
{
  mcp_buf_t b;

  mcp_buf_init(&b, 16);
  ASSERT_NULL(b.data);
  ASSERT_EQ(b.len, 0);
  ASSERT_EQ(b.cap, 0);
  ASSERT_EQ(b.max, 16);
  mcp_buf_free(&b);
}

static void
test_append_and_putc(void)
{
  mcp_buf_t b;

  mcp_buf_init(&b, 0);
  ASSERT_EQ(mcp_buf_append(&b, "hello", 5), 0);
  ASSERT_EQ(b.len, 5);
  ASSERT(b.cap >= b.len + 1);
  ASSERT_STR_EQ(b.data, "hello");
  ASSERT_EQ(mcp_buf_putc(&b, ','), 0);
  ASSERT_EQ(mcp_buf_append(&b, " world", 6), 0);
  ASSERT_STR_EQ(b.data, "hello, world");
  ASSERT_EQ(b.len, 12);
  /* Appending nothing keeps the content and the terminator. */
  ASSERT_EQ(mcp_buf_append(&b, "", 0), 0);
  ASSERT_EQ(b.len, 12);
  ASSERT_STR_EQ(b.data, "hello, world");
  mcp_buf_free(&b);
  ASSERT_NULL(b.data);
  ASSERT_EQ(b.len, 0);
  ASSERT_EQ(b.cap, 0);
  ASSERT_EQ(b.max, 0);
}

static void
test_growth_keeps_bytes(void)
{
  mcp_buf_t b;
  size_t i, cap = 0;
  int grows = 0;

  /* Byte by byte across several reallocations, including NUL bytes. */
  mcp_buf_init(&b, 0);
  for (i = 0; i < 5000; i++) {
    ASSERT_EQ(mcp_buf_putc(&b, (char) (i % 251)), 0);
    ASSERT_EQ(b.len, i + 1);
    ASSERT(b.cap >= b.len + 1);
    ASSERT_EQ(b.data[b.len], '\0');
    if (b.cap != cap) {
      grows++;
      cap = b.cap;
    }
  }
  /* Growth is geometric, so appends cost amortised O(1). */
  ASSERT(grows <= 8);
  for (i = 0; i < 5000; i++)
    ASSERT_EQ((unsigned char) b.data[i], i % 251);
  mcp_buf_free(&b);
}

static void
test_limit_exact(void)
{
  mcp_buf_t b;

  /* Filling to exactly max succeeds, whole or byte by byte. */
  mcp_buf_init(&b, 10);
  ASSERT_EQ(mcp_buf_append(&b, "0123456789", 10), 0);
  ASSERT_EQ(b.len, 10);
  ASSERT_STR_EQ(b.data, "0123456789");
  mcp_buf_free(&b);

  mcp_buf_init(&b, 10);
  ASSERT_EQ(mcp_buf_append(&b, "01234", 5), 0);
  ASSERT_EQ(mcp_buf_append(&b, "56789", 5), 0);
  ASSERT_STR_EQ(b.data, "0123456789");
  mcp_buf_free(&b);
}

static void
test_limit_leaves_buffer_unchanged(void)
{
  mcp_buf_t b;
  char *data;
  size_t cap;

  mcp_buf_init(&b, 10);
  ASSERT_EQ(mcp_buf_append(&b, "abcdefgh", 8), 0);
  data = b.data;
  cap = b.cap;

  ASSERT_EQ(mcp_buf_append(&b, "xyz", 3), MCP_ETOOBIG);
  ASSERT_EQ(b.len, 8);
  ASSERT(b.data == data);
  ASSERT_EQ(b.cap, cap);
  ASSERT_STR_EQ(b.data, "abcdefgh");

  ASSERT_EQ(mcp_buf_append(&b, "yz", 2), 0);
  ASSERT_STR_EQ(b.data, "abcdefghyz");
  ASSERT_EQ(mcp_buf_putc(&b, '!'), MCP_ETOOBIG);
  ASSERT_EQ(b.len, 10);
  ASSERT_STR_EQ(b.data, "abcdefghyz");
  mcp_buf_free(&b);
  ASSERT_EQ(b.max, 10);
}

static void
test_limit_on_empty_buffer(void)
{
  mcp_buf_t b;

  /* One append bigger than max allocates nothing. */
  mcp_buf_init(&b, 4);
  ASSERT_EQ(mcp_buf_append(&b, "12345", 5), MCP_ETOOBIG);
  ASSERT_NULL(b.data);
  ASSERT_EQ(b.len, 0);
  ASSERT_EQ(b.cap, 0);

  /* A length that would overflow len + n is refused, not wrapped. */
  ASSERT_EQ(mcp_buf_append(&b, "1", 1), 0);
  ASSERT_EQ(mcp_buf_append(&b, "x", SIZE_MAX), MCP_ETOOBIG);
  ASSERT_EQ(mcp_buf_append(&b, "x", SIZE_MAX - 1), MCP_ETOOBIG);
  ASSERT_EQ(b.len, 1);
  ASSERT_STR_EQ(b.data, "1");
  mcp_buf_free(&b);
}

static void
test_consume(void)
{
  mcp_buf_t b;

  mcp_buf_init(&b, 0);
  ASSERT_EQ(mcp_buf_append(&b, "abcdef", 6), 0);
  mcp_buf_consume(&b, 0);
  ASSERT_EQ(b.len, 6);
  ASSERT_STR_EQ(b.data, "abcdef");
  mcp_buf_consume(&b, 2);
  ASSERT_EQ(b.len, 4);
  ASSERT_STR_EQ(b.data, "cdef");
  mcp_buf_consume(&b, 3);
  ASSERT_EQ(b.len, 1);
  ASSERT_STR_EQ(b.data, "f");
  mcp_buf_consume(&b, 1);
  ASSERT_EQ(b.len, 0);
  ASSERT_STR_EQ(b.data, "");
  ASSERT_EQ(mcp_buf_append(&b, "gh", 2), 0);
  mcp_buf_consume(&b, 100);
  ASSERT_EQ(b.len, 0);
  ASSERT_STR_EQ(b.data, "");
  mcp_buf_free(&b);

  /* Consuming from a buffer that never allocated is harmless. */
  mcp_buf_init(&b, 0);
  mcp_buf_consume(&b, 5);
  ASSERT_NULL(b.data);
  ASSERT_EQ(b.len, 0);
  mcp_buf_free(&b);
}

static void
test_consume_frees_room_under_limit(void)
{
  mcp_buf_t b;

  mcp_buf_init(&b, 6);
  ASSERT_EQ(mcp_buf_append(&b, "abcdef", 6), 0);
  ASSERT_EQ(mcp_buf_putc(&b, 'g'), MCP_ETOOBIG);
  mcp_buf_consume(&b, 2);
  ASSERT_EQ(mcp_buf_append(&b, "gh", 2), 0);
  ASSERT_STR_EQ(b.data, "cdefgh");
  ASSERT_EQ(mcp_buf_putc(&b, 'i'), MCP_ETOOBIG);
  mcp_buf_free(&b);
}

static void
test_reset(void)
{
  mcp_buf_t b;
  size_t cap;

  mcp_buf_init(&b, 8);
  ASSERT_EQ(mcp_buf_append(&b, "12345678", 8), 0);
  cap = b.cap;
  mcp_buf_reset(&b);
  ASSERT_EQ(b.len, 0);
  ASSERT_EQ(b.cap, cap); /* the memory is kept for reuse */
  ASSERT_STR_EQ(b.data, "");
  ASSERT_EQ(b.max, 8);
  ASSERT_EQ(mcp_buf_append(&b, "abcdefgh", 8), 0);
  ASSERT_STR_EQ(b.data, "abcdefgh");
  ASSERT_EQ(mcp_buf_putc(&b, 'x'), MCP_ETOOBIG);
  mcp_buf_free(&b);

  mcp_buf_init(&b, 8);
  mcp_buf_reset(&b); /* on a never-used buffer */
  ASSERT_EQ(b.len, 0);
  mcp_buf_free(&b);
}

static void
test_free_then_reuse(void)
{
  mcp_buf_t b;

  mcp_buf_init(&b, 3);
  ASSERT_EQ(mcp_buf_append(&b, "abc", 3), 0);
  mcp_buf_free(&b);
  ASSERT_NULL(b.data);
  ASSERT_EQ(b.max, 3); /* the limit survives free */
  ASSERT_EQ(mcp_buf_append(&b, "abcd", 4), MCP_ETOOBIG);
  ASSERT_EQ(mcp_buf_append(&b, "xy", 2), 0);
  ASSERT_STR_EQ(b.data, "xy");
  mcp_buf_free(&b);
  mcp_buf_free(&b); /* freeing twice is safe */
}

int
main(void)
{
  RUN_TEST(test_init_empty);
  RUN_TEST(test_append_and_putc);
  RUN_TEST(test_growth_keeps_bytes);
  RUN_TEST(test_limit_exact);
  RUN_TEST(test_limit_leaves_buffer_unchanged);
  RUN_TEST(test_limit_on_empty_buffer);
  RUN_TEST(test_consume);
  RUN_TEST(test_consume_frees_room_under_limit);
  RUN_TEST(test_reset);
  RUN_TEST(test_free_then_reuse);
  TEST_DONE();
}
