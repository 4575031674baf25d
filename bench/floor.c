/*
 * floor.c - the floor of the benchmark: what one stdio round trip costs on
 * this machine with no MCP client library in the way.
 *
 * The parent spawns the fixture server, sends it initialize, then does
 * tools/call echo round trips over plain pipes: each request is built and
 * printed with cJSON, each response read with a buffered reader and parsed
 * with cJSON, so both sides pay one JSON print and one parse per message.
 * Two phases, as in the client benchmarks: sequential calls, then a window
 * of W calls in flight (each answer read lets one more request go; the
 * requests made while handling one read go out in one write). It prints
 * one JSON object on stdout. main owns every buffer; nothing is shared.
 * With --cold it does only what the cold-start phase does (spawn,
 * initialize, one call, exit), for the driver to time as a whole.
 *
 * Usage: floor SERVER [--calls N] [--inflight-calls N] [--window W]
 *        floor SERVER --cold
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "floor_common.h"

#define FLOOR_CHUNK (64 * 1024)

typedef struct floor_conn_s
{
  int to_child;                 /* write end of the child's stdin */
  int from_child;               /* read end of the child's stdout */
  pid_t pid;
  char *in;                     /* read buffer, owned */
  size_t in_len;                /* bytes buffered */
  size_t in_off;                /* start of the first unconsumed line */
  size_t in_cap;
  char *out;                    /* pending requests, owned */
  size_t out_len;
  size_t out_cap;
} floor_conn_t;

static void
floor_spawn(floor_conn_t *c, char *const argv[])
{
  int in_pipe[2];
  int out_pipe[2];

  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0)
    floor_die("pipe");
  c->pid = fork();
  if (c->pid < 0)
    floor_die("fork");
  if (c->pid == 0)
  {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    close(in_pipe[0]);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  c->to_child = in_pipe[1];
  c->from_child = out_pipe[0];
  c->in_cap = FLOOR_CHUNK;
  c->in = malloc(c->in_cap);
  c->out_cap = FLOOR_CHUNK;
  c->out = malloc(c->out_cap);
  if (c->in == NULL || c->out == NULL)
    floor_die("malloc");
  c->in_len = c->in_off = c->out_len = 0;
}

/* Queues one tools/call echo request (printed by cJSON) with this id. */
static void
floor_queue_call(floor_conn_t *c, int id)
{
  char *text = floor_echo_request(id);
  size_t n;

  n = strlen(text);
  while (c->out_cap - c->out_len < n + 1)
  {
    c->out_cap *= 2;
    c->out = realloc(c->out, c->out_cap);
    if (c->out == NULL)
      floor_die("realloc");
  }
  memcpy(c->out + c->out_len, text, n);
  c->out[c->out_len + n] = '\n';
  c->out_len += n + 1;
  cJSON_free(text);
}

static void
floor_flush(floor_conn_t *c)
{
  size_t off = 0;
  ssize_t n;

  while (off < c->out_len)
  {
    n = write(c->to_child, c->out + off, c->out_len - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      floor_die("write");
    off += (size_t) n;
  }
  c->out_len = 0;
}

/* Returns the next complete line (NUL-terminated in place) or NULL when
 * the buffer holds none; never reads. */
static char *
floor_next_line(floor_conn_t *c, size_t *len)
{
  char *start = c->in + c->in_off;
  char *nl = memchr(start, '\n', c->in_len - c->in_off);

  if (nl == NULL)
    return NULL;
  *nl = '\0';
  *len = (size_t) (nl - start);
  c->in_off += *len + 1;
  return start;
}

/* One read(2); compacts first. */
static void
floor_fill(floor_conn_t *c)
{
  ssize_t n;

  if (c->in_off > 0)
  {
    memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
    c->in_len -= c->in_off;
    c->in_off = 0;
  }
  if (c->in_cap - c->in_len < FLOOR_CHUNK / 2)
  {
    c->in_cap *= 2;
    c->in = realloc(c->in, c->in_cap);
    if (c->in == NULL)
      floor_die("realloc");
  }
  do
    n = read(c->from_child, c->in + c->in_len, c->in_cap - c->in_len - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    floor_die("read: the server closed its stdout");
  c->in_len += (size_t) n;
}

/* Reads until one full line is there and returns it. */
static char *
floor_read_line(floor_conn_t *c, size_t *len)
{
  char *line;

  for (;;)
  {
    line = floor_next_line(c, len);
    if (line != NULL)
      return line;
    floor_fill(c);
  }
}

int
main(int argc, char **argv)
{
  floor_conn_t c;
  char *child_argv[2];
  floor_opts_t opts;
  int calls;
  int inflight_calls;
  int window;
  double *lat;
  double *sent;
  double t0;
  double t1;
  size_t len;
  char *line;
  int i;
  int done;
  int next;
  int status;
  int cold;

  if (argc < 2)
  {
    fprintf(stderr, "usage: floor SERVER [--calls N] [--inflight-calls N] "
      "[--window W] | --cold\n");
    return 2;
  }
  floor_parse_opts(argc, argv, &opts);
  calls = opts.calls;
  inflight_calls = opts.inflight_calls;
  window = opts.window;
  cold = opts.cold;
  signal(SIGPIPE, SIG_IGN);
  child_argv[0] = argv[1];
  child_argv[1] = NULL;
  floor_spawn(&c, child_argv);

  /* The handshake, untimed. */
  {
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
      "\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
      "\"capabilities\":{},\"clientInfo\":{\"name\":\"floor\","
      "\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":"
      "\"notifications/initialized\"}\n";

    memcpy(c.out, init, sizeof init - 1);
    c.out_len = sizeof init - 1;
    floor_flush(&c);
    floor_read_line(&c, &len);
  }
  if (cold)
  {
    floor_queue_call(&c, 1);
    floor_flush(&c);
    line = floor_read_line(&c, &len);
    floor_check_echo(line, len);
    close(c.to_child);
    waitpid(c.pid, &status, 0);
    return 0;
  }

  lat = malloc(sizeof *lat * (size_t) (calls > inflight_calls ? calls
    : inflight_calls));
  sent = malloc(sizeof *sent * (size_t) inflight_calls);
  if (lat == NULL || sent == NULL)
    floor_die("malloc");

  /* Warm-up, then sequential round trips. */
  for (i = 0; i < 200; i++)
  {
    floor_queue_call(&c, i + 1);
    floor_flush(&c);
    line = floor_read_line(&c, &len);
    floor_check_echo(line, len);
  }
  printf("{\n");
  t0 = floor_now_us();
  for (i = 0; i < calls; i++)
  {
    double s = floor_now_us();

    floor_queue_call(&c, i + 1);
    floor_flush(&c);
    line = floor_read_line(&c, &len);
    if (floor_check_echo(line, len) != i + 1)
      floor_die("out-of-order response");
    lat[i] = floor_now_us() - s;
  }
  t1 = floor_now_us();
  floor_report("seq", lat, calls, (t1 - t0) / 1e6, 1, 0);

  /* A window of calls in flight. */
  t0 = floor_now_us();
  next = 0;
  done = 0;
  while (next < window && next < inflight_calls)
  {
    sent[next] = t0;
    floor_queue_call(&c, next);
    next++;
  }
  floor_flush(&c);
  while (done < inflight_calls)
  {
    double now;
    int id;

    floor_fill(&c);
    now = floor_now_us();
    for (;;)
    {
      line = floor_next_line(&c, &len);
      if (line == NULL)
        break;
      id = floor_check_echo(line, len);
      lat[done++] = now - sent[id];
      if (next < inflight_calls)
      {
        sent[next] = floor_now_us();
        floor_queue_call(&c, next);
        next++;
      }
    }
    floor_flush(&c);
  }
  t1 = floor_now_us();
  floor_report("inflight", lat, inflight_calls, (t1 - t0) / 1e6, window, 1);
  printf("}\n");

  close(c.to_child);
  waitpid(c.pid, &status, 0);
  free(lat);
  free(sent);
  free(c.in);
  free(c.out);
  return 0;
}
