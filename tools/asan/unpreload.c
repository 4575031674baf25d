/*
 * unpreload.c - loaded with LD_PRELOAD after the ASan runtime when an
 * uninstrumented program (lua5.4 running busted) loads the sanitizer
 * build's mcp/core.so (tools/run-tests.sh with ASAN=1).
 *
 * Its one job: take LD_PRELOAD out of the environment once the dynamic
 * loader has used it. Otherwise every program the specs start (node
 * servers, sh, luarocks and the compiler it runs) would inherit it and run
 * under the ASan runtime too, and their own leak reports would end up in
 * the stderr and exit status the specs check. luamcp, which the specs also
 * start, is linked with the runtime and needs no preload.
 */
#include <stdlib.h>

__attribute__((constructor)) static void
unpreload(void)
{
  unsetenv("LD_PRELOAD");
}
