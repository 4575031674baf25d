/*
 * process.h - spawn and supervise one child process.
 *
 * The child runs in a session and process group of its own, with pipes for
 * stdin, stdout and stderr. Its stdout bytes go to on_stdout as they come;
 * its stderr is kept in a bounded ring (the tail, for error messages) and
 * forwarded line by line. mcp_process_shutdown runs the specification's
 * ladder: close stdin, wait, SIGTERM to the whole group, wait, SIGKILL to
 * the whole group. When the child exits on its own or otherwise, whatever
 * remains of its group (grandchildren such as npx -> node) gets SIGTERM and
 * then SIGKILL. The exit is always reaped.
 *
 * Ownership: the process object frees itself. After on_closed has been
 * called the owner must not touch it again; until then every function may
 * be called, including from inside its callbacks.
 */
#ifndef MCP_PROCESS_H
#define MCP_PROCESS_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "error.h"

typedef struct mcp_process_s mcp_process_t;

typedef struct mcp_process_cb_s {
  void (*on_stdout)(void *ud, const char *data, size_t len);
  void (*on_stderr_line)(void *ud, const char *line, size_t len);
  /* The child can no longer talk to us: it exited (and its pipes were
   * drained, so the stderr tail is complete), or it closed its stdout and
   * did not exit within a short delay. Called once. */
  void (*on_gone)(void *ud);
  /* Writing to the child's stdin failed (it stopped reading): msg says
   * how. Called once; stdin is closed by then. */
  void (*on_write_failed)(void *ud, const char *msg);
  /* Every handle is closed and the group is gone; the object is freed
   * right after this returns. */
  void (*on_closed)(void *ud);
} mcp_process_cb_t;

typedef struct mcp_process_opts_s {
  const char *const *argv;    /* argv[0] is looked up in PATH */
  const char *const *env;     /* "NAME=value" overrides, or "NAME" to unset;
                                 NULL-terminated; may be NULL */
  const char *cwd;            /* may be NULL */
  size_t stderr_ring;         /* bytes of stderr tail kept; 0: default */
  uint64_t grace_ms;          /* each wait of the ladder; 0: default */
} mcp_process_opts_t;

/* Call once before spawning: makes sure descriptors 0, 1 and 2 are open
 * (on /dev/null when the host started without them), so that no pipe we
 * create lands on them; ignores SIGPIPE unless the host handles it, so a
 * write to a dead server is an error and not the host's death; and stops
 * children inheriting our descriptors. */
void mcp_process_global_init(void);

int mcp_process_spawn(uv_loop_t *loop, const mcp_process_opts_t *opts,
                      const mcp_process_cb_t *cb, void *ud,
                      mcp_process_t **out, mcp_error_t *err);

/* Queues bytes for the child's stdin. Everything queued during one turn
 * of the loop goes out in one write, at the end of the turn (prepare and
 * check handles), so a burst of messages costs one system call. Returns
 * MCP_ECLOSED once stdin is closed; a later failure is reported through
 * on_write_failed. */
int mcp_process_write(mcp_process_t *p, const uv_buf_t *bufs,
                      unsigned nbufs, mcp_error_t *err);

/* Starts the shutdown ladder. Idempotent. */
void mcp_process_shutdown(mcp_process_t *p);

/* Copies the last bytes of stderr (at most cap - 1) into out, NUL
 * terminated, starting at a line boundary when possible. Returns the
 * length. */
size_t mcp_process_stderr_tail(const mcp_process_t *p, char *out, size_t cap);

int mcp_process_pid(const mcp_process_t *p);
/* Returns 1 and fills the status once the child has exited: exit_status is
 * its exit code, or -1 when term_signal killed it. Returns 0 before. */
int mcp_process_status(const mcp_process_t *p, int64_t *exit_status,
                       int *term_signal);

#endif
