/*
 * process.c - child process supervision over libuv.
 *
 * Life of a process object:
 *   spawned -> exit (reaped) -> pipes drained: on_gone -> group cleanup
 *   -> every handle closed: on_closed -> freed.
 * `timer` serves the shutdown ladder before the exit and the cleanup of the
 * process group after it; `drain` bounds the wait for the pipes' EOF. The
 * object frees itself once its eight handles are closed.
 */
#define _GNU_SOURCE             /* F_SETPIPE_SZ */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "buf.h"
#include "common.h"

extern char **environ;

#define READ_CHUNK 65536
#define GROUP_POLL_MS 20
#define DRAIN_MS 250
#define STDOUT_EOF_MS 300
#define WRITE_GRACE_MS 100

enum phase {
  PH_RUNNING,      /* no shutdown asked, child alive */
  PH_WAIT_EXIT,    /* stdin closed, waiting for the child to leave */
  PH_WAIT_TERM,    /* SIGTERM sent to the group */
  PH_WAIT_KILL,    /* SIGKILL sent to the group */
  PH_GROUP_TERM,   /* child exited; SIGTERM sent to what is left */
  PH_GROUP_KILL,   /* child exited; SIGKILL sent to what is left */
  PH_CLOSING       /* handles are being closed */
};

struct mcp_process_s {
  uv_loop_t *loop;
  uv_process_t proc;
  uv_pipe_t in, out, err;
  uv_timer_t timer;        /* the ladder, then the group cleanup */
  uv_timer_t drain;        /* bounds the wait for the pipes' EOF */
  uv_prepare_t flush_prepare; /* flush the output queue before polling */
  uv_check_t flush_check;  /* ... and after the callbacks of a poll */
  mcp_buf_t outq;          /* bytes queued for stdin during this turn */
  unsigned flush_armed : 1;
  unsigned pipe_full : 1;  /* an early flush found the pipe full: the
                            * loop's flush goes next, not another try */
  mcp_process_cb_t cb;
  void *ud;
  int pid;
  enum phase phase;
  int open_handles;        /* handles whose close callback is still due */
  unsigned spawned : 1;    /* uv_spawn succeeded */
  unsigned exited : 1;
  unsigned in_closed : 1;
  unsigned out_eof : 1;
  unsigned err_eof : 1;
  unsigned out_closed : 1;
  unsigned err_closed : 1;
  unsigned gone : 1;       /* on_gone was called */
  unsigned group_done : 1; /* nothing is left of the process group */
  int64_t exit_status;
  int term_signal;
  uint64_t grace_ms;
  uint64_t deadline;       /* end of the current wait, in loop time */
  char *ring;              /* stderr tail, circular */
  size_t ring_cap, ring_len, ring_head;
  mcp_buf_t line;          /* the stderr line being assembled */
  char write_error[96];    /* why stdin failed, reported after a grace */
  char readbuf[READ_CHUNK];
};

typedef struct write_req_s {
  uv_write_t req;
  char data[1];            /* the bytes, allocated with the request */
} write_req_t;

static void finish_if_done(mcp_process_t *p);
static void flush_output(mcp_process_t *p);
static void report_gone(mcp_process_t *p);
static void report_gone_if_ready(mcp_process_t *p);
static void on_drain(uv_timer_t *t);

static void
on_handle_closed(uv_handle_t *h)
{
  mcp_process_t *p = h->data;

  if (--p->open_handles > 0)
    return;
  if (p->spawned && p->cb.on_closed != NULL)
    p->cb.on_closed(p->ud);
  mcp_buf_free(&p->line);
  mcp_buf_free(&p->outq);
  free(p->ring);
  free(p);
}

static void
close_handle(mcp_process_t *p, uv_handle_t *h)
{
  if (!uv_is_closing(h)) {
    h->data = p;
    uv_close(h, on_handle_closed);
  }
}

static void
close_stdin(mcp_process_t *p)
{
  if (!p->in_closed) {
    p->in_closed = 1;
    close_handle(p, (uv_handle_t *) &p->in);
  }
  if (p->flush_armed) {
    p->flush_armed = 0;
    uv_prepare_stop(&p->flush_prepare);
    uv_check_stop(&p->flush_check);
  }
  mcp_buf_reset(&p->outq);
}

/* ---- stderr ring and lines --------------------------------------------- */

static void
ring_put(mcp_process_t *p, const char *data, size_t len)
{
  size_t i;

  for (i = 0; i < len; i++) {
    p->ring[(p->ring_head + p->ring_len) % p->ring_cap] = data[i];
    if (p->ring_len < p->ring_cap)
      p->ring_len++;
    else
      p->ring_head = (p->ring_head + 1) % p->ring_cap;
  }
}

static void
emit_stderr_line(mcp_process_t *p)
{
  size_t len = p->line.len;

  if (len > 0 && p->line.data[len - 1] == '\r')
    len--;
  if (p->cb.on_stderr_line != NULL)
    p->cb.on_stderr_line(p->ud, len ? p->line.data : "", len);
  mcp_buf_reset(&p->line);
}

static void
stderr_bytes(mcp_process_t *p, const char *data, size_t len)
{
  size_t i;

  ring_put(p, data, len);
  for (i = 0; i < len; i++) {
    if (data[i] == '\n') {
      emit_stderr_line(p);
    } else if (mcp_buf_putc(&p->line, data[i]) != 0) {
      /* An over-long line is forwarded in pieces rather than kept. */
      emit_stderr_line(p);
      mcp_buf_putc(&p->line, data[i]);
    }
  }
}

size_t
mcp_process_stderr_tail(const mcp_process_t *p, char *out, size_t cap)
{
  size_t n, i, start = 0;

  if (cap == 0)
    return 0;
  n = p->ring_len < cap - 1 ? p->ring_len : cap - 1;
  for (i = 0; i < n; i++)
    out[i] = p->ring[(p->ring_head + p->ring_len - n + i) % p->ring_cap];
  /* When the ring wrapped, start at the first whole line. */
  if (p->ring_len == p->ring_cap || n < p->ring_len) {
    for (i = 0; i < n; i++) {
      if (out[i] == '\n') {
        start = i + 1;
        break;
      }
    }
    if (start < n)
      memmove(out, out + start, n - start);
    else
      start = 0;
  }
  n -= start;
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
    n--;
  out[n] = '\0';
  return n;
}

/* ---- reading ------------------------------------------------------------- */

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  mcp_process_t *p = h->data;

  MCP_UNUSED(suggested);
  /* Reads are consumed synchronously, so one buffer serves both pipes. */
  buf->base = p->readbuf;
  buf->len = sizeof p->readbuf;
}

static void
on_stdout_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
  mcp_process_t *p = s->data;

  if (nread > 0) {
    if (p->cb.on_stdout != NULL)
      p->cb.on_stdout(p->ud, buf->base, (size_t) nread);
    return;
  }
  if (nread == 0)
    return; /* EAGAIN: not EOF */
  uv_read_stop(s);
  p->out_eof = 1;
  if (!p->exited)  /* it may exit in a moment; if not, it is gone anyway */
    uv_timer_start(&p->drain, on_drain, STDOUT_EOF_MS, 0);
  report_gone_if_ready(p);
}

static void
on_stderr_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
  mcp_process_t *p = s->data;

  if (nread > 0) {
    stderr_bytes(p, buf->base, (size_t) nread);
    return;
  }
  if (nread == 0)
    return;
  uv_read_stop(s);
  if (p->line.len > 0)
    emit_stderr_line(p);
  p->err_eof = 1;
  report_gone_if_ready(p);
}

/* ---- the ladder and the group ----------------------------------------------- */

static int
group_alive(const mcp_process_t *p)
{
  return kill(-p->pid, 0) == 0 || errno == EPERM;
}

static void
signal_group(mcp_process_t *p, int sig)
{
  if (kill(-p->pid, sig) != 0 && !p->exited)
    uv_process_kill(&p->proc, sig); /* not a group leader after all */
}

static void on_timer(uv_timer_t *t);

static void
wait_until(mcp_process_t *p, enum phase phase, uint64_t ms, uint64_t poll)
{
  p->phase = phase;
  p->deadline = uv_now(p->loop) + ms;
  uv_timer_start(&p->timer, on_timer, poll ? poll : ms, poll);
}

static void
close_all(mcp_process_t *p)
{
  p->phase = PH_CLOSING;
  uv_timer_stop(&p->timer);
  close_handle(p, (uv_handle_t *) &p->timer);
  close_handle(p, (uv_handle_t *) &p->drain);
  close_handle(p, (uv_handle_t *) &p->flush_prepare);
  close_handle(p, (uv_handle_t *) &p->flush_check);
  close_stdin(p);
  if (!p->out_closed) {
    p->out_closed = 1;
    close_handle(p, (uv_handle_t *) &p->out);
  }
  if (!p->err_closed) {
    p->err_closed = 1;
    close_handle(p, (uv_handle_t *) &p->err);
  }
}

/* Closes everything once the child was reaped, reported, and nothing is
 * left of its group. Pipes a leftover still holds are closed regardless. */
static void
finish_if_done(mcp_process_t *p)
{
  if (p->exited && p->gone && p->group_done && p->phase != PH_CLOSING)
    close_all(p);
}

static void
report_gone(mcp_process_t *p)
{
  if (p->gone)
    return;
  p->gone = 1;
  uv_timer_stop(&p->drain);
  if (p->cb.on_gone != NULL)
    p->cb.on_gone(p->ud);
  finish_if_done(p);
}

/* After an exit, waits for both pipes' EOF so the stderr tail is whole. */
static void
report_gone_if_ready(mcp_process_t *p)
{
  if (p->exited && p->out_eof && p->err_eof)
    report_gone(p);
}

static void
on_drain(uv_timer_t *t)
{
  report_gone(t->data);
}

static void
group_done(mcp_process_t *p)
{
  uv_timer_stop(&p->timer);
  p->group_done = 1;
  p->phase = PH_RUNNING;
  finish_if_done(p);
}

static void
on_timer(uv_timer_t *t)
{
  mcp_process_t *p = t->data;
  int deadline_passed = uv_now(p->loop) >= p->deadline;

  switch (p->phase) {
  case PH_WAIT_EXIT:
    signal_group(p, SIGTERM);
    wait_until(p, PH_WAIT_TERM, p->grace_ms, 0);
    break;
  case PH_WAIT_TERM:
  case PH_WAIT_KILL:
    /* SIGKILL cannot be ignored; the exit callback will come. */
    signal_group(p, SIGKILL);
    wait_until(p, PH_WAIT_KILL, p->grace_ms, 0);
    break;
  case PH_GROUP_TERM:
  case PH_GROUP_KILL:
    if (!group_alive(p)) {
      group_done(p);
    } else if (deadline_passed && p->phase == PH_GROUP_TERM) {
      signal_group(p, SIGKILL);
      wait_until(p, PH_GROUP_KILL, p->grace_ms, GROUP_POLL_MS);
    } else if (deadline_passed) {
      group_done(p); /* unkillable leftovers are not ours to wait for */
    }
    break;
  default:
    uv_timer_stop(t);
    break;
  }
}

static void
on_exit_cb(uv_process_t *proc, int64_t exit_status, int term_signal)
{
  mcp_process_t *p = proc->data;

  p->exited = 1;
  p->exit_status = term_signal ? -1 : exit_status;
  p->term_signal = term_signal;
  uv_timer_stop(&p->timer);
  close_handle(p, (uv_handle_t *) &p->proc);
  close_stdin(p);
  if (!(p->out_eof && p->err_eof))
    uv_timer_start(&p->drain, on_drain, DRAIN_MS, 0);
  /* Whatever the child left behind in its group goes too. */
  if (group_alive(p)) {
    signal_group(p, SIGTERM);
    wait_until(p, PH_GROUP_TERM, p->grace_ms, GROUP_POLL_MS);
  } else {
    p->group_done = 1;
    p->phase = PH_RUNNING;
  }
  report_gone_if_ready(p);
  finish_if_done(p);
}

static void
on_stdin_shutdown(uv_shutdown_t *req, int status)
{
  mcp_process_t *p = req->handle->data;

  MCP_UNUSED(status);
  free(req);
  close_stdin(p);
}

void
mcp_process_shutdown(mcp_process_t *p)
{
  uv_shutdown_t *req;

  if (p->exited || p->phase != PH_RUNNING)
    return;
  /* What was said before the close still reaches the server: the queued
   * output goes out, and stdin closes once the pipe has taken it. */
  flush_output(p);
  if (!p->in_closed &&
      uv_stream_get_write_queue_size((uv_stream_t *) &p->in) > 0 &&
      (req = malloc(sizeof *req)) != NULL) {
    if (uv_shutdown(req, (uv_stream_t *) &p->in, on_stdin_shutdown) != 0) {
      free(req);
      close_stdin(p);
    }
  } else {
    close_stdin(p);
  }
  wait_until(p, PH_WAIT_EXIT, p->grace_ms, 0);
}

/* ---- writing ------------------------------------------------------------ */

static void
on_write_grace(uv_timer_t *t)
{
  mcp_process_t *p = t->data;

  if (!p->gone && p->cb.on_write_failed != NULL)
    p->cb.on_write_failed(p->ud, p->write_error);
}

/* A server that stops reading has most often exited, or is exiting: its
 * exit and its last stderr lines get WRITE_GRACE_MS to arrive first, so
 * that the error says why (on_gone then reports it, and this is dropped).
 * One that lingers is reported as a failed write. */
static void
write_failed(mcp_process_t *p, int status)
{
  snprintf(p->write_error, sizeof p->write_error, "write to server failed: %s",
           uv_strerror(status));
  close_stdin(p);
  if (!uv_is_active((uv_handle_t *) &p->drain))
    uv_timer_start(&p->drain, on_write_grace, WRITE_GRACE_MS, 0);
}

static void
on_write(uv_write_t *req, int status)
{
  mcp_process_t *p = req->handle->data;

  free(req);
  if (status != 0 && status != UV_ECANCELED && !p->in_closed)
    write_failed(p, status);
}

#define EARLY_FLUSH 4096u

/* Writes out what this loop turn queued: at once when the pipe takes it,
 * the rest (copied) through uv_write. */
static void
flush_output(mcp_process_t *p)
{
  uv_buf_t buf;
  write_req_t *w;
  size_t off = 0;
  int n;

  p->flush_armed = 0;
  p->pipe_full = 0;
  uv_prepare_stop(&p->flush_prepare);
  uv_check_stop(&p->flush_check);
  if (p->outq.len == 0 || p->in_closed)
    return;
  if (uv_stream_get_write_queue_size((uv_stream_t *) &p->in) == 0) {
    buf = uv_buf_init(p->outq.data, (unsigned) p->outq.len);
    n = uv_try_write((uv_stream_t *) &p->in, &buf, 1);
    if (n > 0) {
      off = (size_t) n;
    } else if (n != UV_EAGAIN) {
      write_failed(p, n);
      return;
    }
  }
  if (off < p->outq.len) {
    w = malloc(sizeof *w + p->outq.len - off);
    if (w == NULL) {
      write_failed(p, UV_ENOMEM);
      return;
    }
    memcpy(w->data, p->outq.data + off, p->outq.len - off);
    buf = uv_buf_init(w->data, (unsigned) (p->outq.len - off));
    n = uv_write(&w->req, (uv_stream_t *) &p->in, &buf, 1, on_write);
    if (n != 0) {
      free(w);
      write_failed(p, n);
      return;
    }
  }
  mcp_buf_reset(&p->outq);
}

/* The early flush of a full page, from inside a send: it writes only what
 * the pipe takes now and never fails there. A failure is left for the
 * loop's flush to report, so that no callback runs inside the caller's
 * send (the request it is sending is not pending yet). */
static void
flush_page(mcp_process_t *p)
{
  uv_buf_t buf;
  int n;

  if (p->in_closed ||
      uv_stream_get_write_queue_size((uv_stream_t *) &p->in) != 0)
    return;
  buf = uv_buf_init(p->outq.data, (unsigned) p->outq.len);
  n = uv_try_write((uv_stream_t *) &p->in, &buf, 1);
  if (n > 0)
    mcp_buf_consume(&p->outq, (size_t) n);
  if (p->outq.len > 0)
    p->pipe_full = 1;
}

static void
on_flush_prepare(uv_prepare_t *h)
{
  flush_output(h->data);
}

static void
on_flush_check(uv_check_t *h)
{
  flush_output(h->data);
}

int
mcp_process_write(mcp_process_t *p, const uv_buf_t *bufs, unsigned nbufs,
                  mcp_error_t *err)
{
  unsigned i;

  if (p->in_closed || p->exited)
    return mcp_error_set(err, MCP_ECLOSED, "server's stdin is closed");
  for (i = 0; i < nbufs; i++) {
    if (mcp_buf_append(&p->outq, bufs[i].base, bufs[i].len) != 0)
      return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  /* A page of output goes now, not at the end of the loop turn: the
   * server starts on it while we go on answering the rest of what we
   * read, instead of waiting for all of it (64 calls in flight went from
   * 144k to 190k/s). A pipe carries data in 4 KB pages. */
  if (p->outq.len >= EARLY_FLUSH && !p->pipe_full) {
    flush_page(p);
    if (p->outq.len == 0)
      return 0;
  }
  if (!p->flush_armed) {
    p->flush_armed = 1;
    uv_prepare_start(&p->flush_prepare, on_flush_prepare);
    uv_check_start(&p->flush_check, on_flush_check);
  }
  return 0;
}

/* ---- spawning ----------------------------------------------------------- */

void
mcp_process_global_init(void)
{
  struct sigaction sa;
  int fd;

  /* Writing to a server that just died must be an EPIPE error, not a
   * signal that kills the host. A handler the host installed is kept. */
  if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGPIPE, &sa, NULL);
  }

  for (fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      int null = open("/dev/null", O_RDWR);

      if (null >= 0 && null != fd) { /* open takes the lowest free fd */
        dup2(null, fd);
        close(null);
      }
    }
  }
  uv_disable_stdio_inheritance();
}

static int
env_overridden(const char *entry, const char *const *env)
{
  size_t klen = strcspn(entry, "=");
  size_t i;

  for (i = 0; env != NULL && env[i] != NULL; i++) {
    if (strncmp(entry, env[i], klen) == 0 &&
        (env[i][klen] == '=' || env[i][klen] == '\0'))
      return 1;
  }
  return 0;
}

/* The inherited environment with the overrides applied. The strings are
 * borrowed; only the array is allocated. */
static char **
merge_env(const char *const *env)
{
  size_t n = 0, m = 0, i, k = 0;
  char **out;

  while (environ[n] != NULL)
    n++;
  while (env != NULL && env[m] != NULL)
    m++;
  out = malloc((n + m + 1) * sizeof *out);
  if (out == NULL)
    return NULL;
  for (i = 0; i < n; i++) {
    if (!env_overridden(environ[i], env))
      out[k++] = environ[i];
  }
  for (i = 0; i < m; i++) {
    if (strchr(env[i], '=') != NULL) /* "NAME" alone unsets NAME */
      out[k++] = (char *) env[i];
  }
  out[k] = NULL;
  return out;
}

/* The server's stdin, stdout and stderr are pipes made here rather than
 * by UV_CREATE_PIPE, which makes Unix socketpairs: every write to a socket
 * allocates and accounts a buffer in the kernel, on both sides, where a
 * pipe copies into its pages (about a sixth of a round trip's kernel
 * time). A pipe is also what a server started from a shell gets. fds[i][0]
 * reads and fds[i][1] writes; the parent's ends are non-blocking, the
 * server's blocking, and all close on exec (uv_spawn dup2()s the server's
 * onto 0, 1 and 2). The server's stdout pipe is widened where Linux
 * allows (to 1 MB, pages taken only as they fill): a large answer (a long
 * tool list) then crosses in one go instead of one context switch per
 * 64 KB. Refused (over the user's pipe quota), it keeps the default. */
#define STDOUT_PIPE_SIZE (1 << 20)

static int
make_pipes(uv_file fds[3][2])
{
  int i, rc = 0;

  for (i = 0; i < 3 && rc == 0; i++) {
    rc = i == 0 ? uv_pipe(fds[i], 0, UV_NONBLOCK_PIPE)
                : uv_pipe(fds[i], UV_NONBLOCK_PIPE, 0);
  }
#ifdef F_SETPIPE_SZ
  if (rc == 0)
    (void) fcntl(fds[1][0], F_SETPIPE_SZ, STDOUT_PIPE_SIZE);
#endif
  if (rc != 0) {
    for (i -= 2; i >= 0; i--) {
      close(fds[i][0]);
      close(fds[i][1]);
    }
  }
  return rc;
}

int
mcp_process_spawn(uv_loop_t *loop, const mcp_process_opts_t *opts,
                  const mcp_process_cb_t *cb, void *ud, mcp_process_t **out,
                  mcp_error_t *err)
{
  mcp_process_t *p;
  uv_process_options_t o;
  uv_stdio_container_t stdio[3];
  uv_file fds[3][2];
  char **env = NULL;
  int rc, i;

  if (opts->argv == NULL || opts->argv[0] == NULL)
    return mcp_error_set(err, MCP_EINVAL, "empty command");
  p = calloc(1, sizeof *p);
  if (p == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  p->ring_cap = opts->stderr_ring ? opts->stderr_ring : MCP_DEFAULT_STDERR_RING;
  p->ring = malloc(p->ring_cap);
  env = merge_env(opts->env);
  if (p->ring == NULL || env == NULL) {
    free(env);
    free(p->ring);
    free(p);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  if ((rc = make_pipes(fds)) != 0) {
    free(env);
    free(p->ring);
    free(p);
    return mcp_error_set(err, MCP_ESPAWN, "cannot start '%s': pipe: %s",
                         opts->argv[0], uv_strerror(rc));
  }
  p->loop = loop;
  p->cb = *cb;
  p->ud = ud;
  p->grace_ms = opts->grace_ms ? opts->grace_ms : MCP_DEFAULT_GRACE_MS;
  mcp_buf_init(&p->line, MCP_DEFAULT_STDERR_LINE);
  uv_timer_init(loop, &p->timer);
  uv_timer_init(loop, &p->drain);
  uv_prepare_init(loop, &p->flush_prepare);
  uv_check_init(loop, &p->flush_check);
  mcp_buf_init(&p->outq, 0);
  uv_pipe_init(loop, &p->in, 0);
  uv_pipe_init(loop, &p->out, 0);
  uv_pipe_init(loop, &p->err, 0);
  /* From here the handles own the parent's ends (closed with them). */
  uv_pipe_open(&p->in, fds[0][1]);
  uv_pipe_open(&p->out, fds[1][0]);
  uv_pipe_open(&p->err, fds[2][0]);
  p->flush_prepare.data = p->flush_check.data = p;
  p->drain.data = p->timer.data = p->in.data = p->out.data = p->err.data = p;
  p->proc.data = p;
  p->open_handles = 8;

  memset(&o, 0, sizeof o);
  stdio[0].data.fd = fds[0][0];
  stdio[1].data.fd = fds[1][1];
  stdio[2].data.fd = fds[2][1];
  for (i = 0; i < 3; i++)
    stdio[i].flags = UV_INHERIT_FD;
  o.file = opts->argv[0];
  o.args = (char **) opts->argv;
  o.env = env;
  o.cwd = opts->cwd;
  o.stdio = stdio;
  o.stdio_count = 3;
  o.exit_cb = on_exit_cb;
  /* DETACHED makes the child call setsid(): a new session and process
   * group whose id is its pid, so the whole tree can be signalled. */
  o.flags = UV_PROCESS_DETACHED;
  rc = uv_spawn(loop, &p->proc, &o);
  free(env);
  close(fds[0][0]);             /* the server's ends are the server's now */
  close(fds[1][1]);
  close(fds[2][1]);
  if (rc != 0) {
    mcp_error_set(err, MCP_ESPAWN, "cannot start '%s': %s", opts->argv[0],
                  uv_strerror(rc));
    /* Not spawned: close quietly; on_handle_closed frees without callbacks. */
    p->in_closed = p->out_closed = p->err_closed = 1;
    close_handle(p, (uv_handle_t *) &p->proc);
    close_handle(p, (uv_handle_t *) &p->timer);
    close_handle(p, (uv_handle_t *) &p->drain);
    close_handle(p, (uv_handle_t *) &p->flush_prepare);
    close_handle(p, (uv_handle_t *) &p->flush_check);
    close_handle(p, (uv_handle_t *) &p->in);
    close_handle(p, (uv_handle_t *) &p->out);
    close_handle(p, (uv_handle_t *) &p->err);
    return MCP_ESPAWN;
  }
  p->spawned = 1;
  p->pid = p->proc.pid;
  uv_read_start((uv_stream_t *) &p->out, on_alloc, on_stdout_read);
  uv_read_start((uv_stream_t *) &p->err, on_alloc, on_stderr_read);
  *out = p;
  return 0;
}

int
mcp_process_pid(const mcp_process_t *p)
{
  return p->pid;
}

int
mcp_process_status(const mcp_process_t *p, int64_t *exit_status,
                   int *term_signal)
{
  if (!p->exited)
    return 0;
  if (exit_status != NULL)
    *exit_status = p->exit_status;
  if (term_signal != NULL)
    *term_signal = p->term_signal;
  return 1;
}
