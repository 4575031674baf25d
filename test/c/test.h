/*
 * test.h - the assertion macros shared by the C tests.
 *
 * Modelled on libuv's test/task.h: each ASSERT_* prints file:line and the
 * failing expression and ends the process with status 1, so ctest reports
 * the binary as failed. RUN_TEST prints "ok <name>" after a case passes, and
 * TEST_DONE prints the totals. Include it from exactly one file per binary.
 */
#ifndef MCP_TEST_H
#define MCP_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_cases_;      /* cases that passed */
static long test_asserts_;   /* assertions evaluated */

#define TEST_FAIL_(...)                                                      \
  do {                                                                       \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                          \
    fprintf(stderr, __VA_ARGS__);                                            \
    fputc('\n', stderr);                                                     \
    fflush(stderr);                                                          \
    exit(1);                                                                 \
  } while (0)

#define ASSERT(expr)                                                         \
  do {                                                                       \
    test_asserts_++;                                                         \
    if (!(expr))                                                             \
      TEST_FAIL_("assertion failed: %s", #expr);                             \
  } while (0)

/* Compares two integers of any type (sizes, codes, counts) as long long. */
#define ASSERT_EQ(a, b)                                                      \
  do {                                                                       \
    long long test_a_ = (long long) (a);                                     \
    long long test_b_ = (long long) (b);                                     \
    test_asserts_++;                                                         \
    if (test_a_ != test_b_)                                                  \
      TEST_FAIL_("%s == %s failed: %lld != %lld", #a, #b, test_a_, test_b_); \
  } while (0)

#define ASSERT_NULL(p) ASSERT((p) == NULL)
#define ASSERT_NOT_NULL(p) ASSERT((p) != NULL)

/* Compares two NUL-terminated strings; NULL equals only NULL. */
#define ASSERT_STR_EQ(a, b)                                                  \
  do {                                                                       \
    const char *test_sa_ = (a);                                              \
    const char *test_sb_ = (b);                                              \
    test_asserts_++;                                                         \
    if (test_sa_ == NULL || test_sb_ == NULL                                 \
            ? test_sa_ != test_sb_                                           \
            : strcmp(test_sa_, test_sb_) != 0)                               \
      TEST_FAIL_("%s == %s failed: \"%s\" != \"%s\"", #a, #b,                \
                 test_sa_ ? test_sa_ : "(null)",                             \
                 test_sb_ ? test_sb_ : "(null)");                            \
  } while (0)

/* Compares len bytes at p (not NUL-terminated) with the string s. */
#define ASSERT_MEM_EQ(p, len, s)                                             \
  do {                                                                       \
    const char *test_p_ = (p);                                               \
    size_t test_len_ = (len);                                                \
    const char *test_s_ = (s);                                               \
    test_asserts_++;                                                         \
    if (test_p_ == NULL || test_len_ != strlen(test_s_) ||                   \
        memcmp(test_p_, test_s_, test_len_) != 0)                            \
      TEST_FAIL_("%s[0..%s] == %s failed: \"%.*s\" != \"%s\"", #p, #len, #s, \
                 test_p_ ? (int) test_len_ : 6,                              \
                 test_p_ ? test_p_ : "(null)", test_s_);                     \
  } while (0)

#define RUN_TEST(fn)                                                         \
  do {                                                                       \
    fn();                                                                    \
    test_cases_++;                                                           \
    printf("ok %s\n", #fn);                                                  \
    fflush(stdout);                                                          \
  } while (0)

#define TEST_DONE()                                                          \
  do {                                                                       \
    printf("# %d cases, %ld assertions passed\n", test_cases_,               \
           test_asserts_);                                                   \
    return 0;                                                                \
  } while (0)

#endif
