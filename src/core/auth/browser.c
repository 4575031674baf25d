/*
 * browser.c - opens the authorization URL (see browser.h).
 */
#include "auth/browser.h"

#include <stdlib.h>
#include <string.h>

#include "auth/urls.h"
#include "common.h"

static void
closed(uv_handle_t *h)
{
  free(h);
}

static void
exited(uv_process_t *p, int64_t status, int signal)
{
  MCP_UNUSED(status);
  MCP_UNUSED(signal);
  uv_close((uv_handle_t *) p, closed);
}

/* Starts program with url as its one argument (or in place of "%s"). */
static int
start(uv_loop_t *loop, const char *program, const char *url)
{
  uv_process_options_t o;
  uv_process_t *p = calloc(1, sizeof *p);
  const char *pct = strstr(program, "%s");
  char *args[3], *prog = NULL, *arg = NULL;
  int rc;

  if (p == NULL)
    return -1;
  if (pct != NULL) {
    /* "prog %s": the words before are the program; no shell either. */
    prog = strndup(program, (size_t) (pct - program));
    while (prog != NULL && prog[0] != '\0' &&
           prog[strlen(prog) - 1] == ' ')
      prog[strlen(prog) - 1] = '\0';
    args[0] = prog;
  } else {
    args[0] = (char *) program;
  }
  arg = strdup(url);
  args[1] = arg;
  args[2] = NULL;
  memset(&o, 0, sizeof o);
  o.file = args[0];
  o.args = args;
  o.exit_cb = exited;
  o.flags = UV_PROCESS_DETACHED;
  rc = args[0] != NULL && args[0][0] != '\0' && arg != NULL
       ? uv_spawn(loop, p, &o) : -1;
  free(prog);
  free(arg);
  if (rc != 0) {
    free(p);
    return -1;
  }
  uv_unref((uv_handle_t *) p);
  return 0;
}

int
mcp_auth_open_browser(uv_loop_t *loop, const char *url, mcp_error_t *err)
{
  const char *browser = getenv("BROWSER");

  if (!mcp_auth_url_allowed(url))
    return mcp_error_set(err, MCP_EINVAL, "refusing to open a URL that is "
                         "neither https nor loopback http");
  if (browser != NULL && browser[0] != '\0') {
    char *list = strdup(browser), *save = NULL, *one;

    for (one = list ? strtok_r(list, ":", &save) : NULL; one != NULL;
         one = strtok_r(NULL, ":", &save)) {
      if (start(loop, one, url) == 0) {
        free(list);
        return 0;
      }
    }
    free(list);
  }
  if (start(loop, "xdg-open", url) == 0)
    return 0;
  return mcp_error_set(err, MCP_ESPAWN, "no browser could be started "
                       "($BROWSER, xdg-open)");
}
