/*
 * http_floor.c - the floor of the HTTP benchmark: what one Streamable HTTP
 * round trip costs on this machine with no MCP client library in the way.
 *
 * Against a running bench/http_fixture_server (JSON or SSE mode), it
 * initializes a session, then does tools/call echo round trips as plain
 * keep-alive HTTP/1.1 POSTs: each request is built and printed with cJSON
 * and sent with one write; each response is read with a buffered reader
 * (Content-Length or chunked; application/json or one SSE event) and its
 * JSON parsed with cJSON, so both sides pay one print and one parse per
 * message. Two phases, as in the client benchmarks: sequential calls on
 * one connection, then W calls in flight on W keep-alive connections (as
 * an HTTP/1.1 client pool does), driven by poll(2). Prints one JSON object
 * on stdout. main owns every buffer; each connection owns its own.
 *
 * Usage: http_floor URL [--calls N] [--inflight-calls N] [--window W]
 *        (URL: http://127.0.0.1:PORT/mcp)
 */
#define _GNU_SOURCE             /* memmem, strcasestr */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "floor_common.h"

#define HF_CHUNK (64 * 1024)

typedef struct hf_conn_s
{
  int fd;
  char *in;                     /* bytes read, owned */
  size_t in_len;
  size_t in_cap;
  char *body;                   /* the de-chunked body, owned */
  size_t body_cap;
  double sent_us;               /* when the request in flight went out */
} hf_conn_t;

static struct sockaddr_in hf_addr;
static char hf_host[64];
static char hf_path[256];
static char hf_session[128];

static void
hf_parse_url(const char *url)
{
  int port = 0;
  const char *p;

  if (strncmp(url, "http://127.0.0.1:", 17) != 0)
    floor_die("URL must be http://127.0.0.1:PORT/PATH");
  port = atoi(url + 17);
  p = strchr(url + 17, '/');
  snprintf(hf_path, sizeof hf_path, "%s", p ? p : "/");
  snprintf(hf_host, sizeof hf_host, "127.0.0.1:%d", port);
  memset(&hf_addr, 0, sizeof hf_addr);
  hf_addr.sin_family = AF_INET;
  hf_addr.sin_port = htons((unsigned short) port);
  hf_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static void
hf_connect(hf_conn_t *c)
{
  int one = 1;

  memset(c, 0, sizeof *c);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  if (c->fd < 0)
    floor_die("socket");
  if (connect(c->fd, (struct sockaddr *) &hf_addr, sizeof hf_addr) != 0)
    floor_die("connect");
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  c->in_cap = HF_CHUNK;
  c->in = malloc(c->in_cap);
  c->body_cap = HF_CHUNK;
  c->body = malloc(c->body_cap);
  if (c->in == NULL || c->body == NULL)
    floor_die("malloc");
}

static void
hf_write_all(int fd, const char *p, size_t n)
{
  ssize_t w;

  while (n > 0)
  {
    w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      floor_die("write");
    p += w;
    n -= (size_t) w;
  }
}

/* One POST with body json (printed by the caller), in one write. */
static void
hf_post(hf_conn_t *c, const char *json, size_t len)
{
  char head[1024];
  char *req;
  int n;

  n = snprintf(head, sizeof head, "POST %s HTTP/1.1\r\nHost: %s\r\n"
    "Content-Type: application/json\r\n"
    "Accept: application/json, text/event-stream\r\n"
    "%s%s%s"
    "Content-Length: %zu\r\n\r\n", hf_path, hf_host,
    hf_session[0] ? "Mcp-Session-Id: " : "", hf_session,
    hf_session[0] ? "\r\n" : "", len);
  req = malloc((size_t) n + len);
  if (req == NULL)
    floor_die("malloc");
  memcpy(req, head, (size_t) n);
  memcpy(req + n, json, len);
  hf_write_all(c->fd, req, (size_t) n + len);
  free(req);
}

/* tools/call echo, printed by cJSON, posted. */
static void
hf_post_call(hf_conn_t *c, int id)
{
  char *text = floor_echo_request(id);

  hf_post(c, text, strlen(text));
  cJSON_free(text);
}

/* Looks for one complete response in c->in. Returns 0 when there is none
 * yet; else consumes it and returns 1 with the JSON message (or NULL for
 * an empty body) in *json / *len, pointing into c->body. status: the HTTP
 * status. The Mcp-Session-Id header, if any, is kept in hf_session. */
static int
hf_take_response(hf_conn_t *c, const char **json, size_t *len, int *status)
{
  char *head_end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
  char *p;
  char *line;
  size_t head_len;
  size_t clen = 0;
  size_t used;
  size_t blen = 0;
  int chunked = 0;
  int sse = 0;

  if (head_end == NULL)
    return 0;
  head_len = (size_t) (head_end - c->in) + 4;
  *status = atoi(c->in + 9);
  for (line = memchr(c->in, '\n', head_len); line != NULL && line < head_end;
       line = memchr(line, '\n', (size_t) (head_end - line)))
  {
    line++;
    if (strncasecmp(line, "content-length:", 15) == 0)
      clen = (size_t) strtoull(line + 15, NULL, 10);
    else if (strncasecmp(line, "transfer-encoding:", 18) == 0)
      chunked = 1;
    else if (strncasecmp(line, "content-type: text/event-stream", 31) == 0)
      sse = 1;
    else if (strncasecmp(line, "mcp-session-id:", 15) == 0)
    {
      char *v = line + 15;
      size_t n;

      while (*v == ' ')
        v++;
      n = strcspn(v, "\r\n");
      if (n >= sizeof hf_session)
        n = sizeof hf_session - 1;
      memcpy(hf_session, v, n);
      hf_session[n] = '\0';
    }
  }
  if (!chunked)
  {
    if (c->in_len - head_len < clen)
      return 0;
    if (clen + 1 > c->body_cap)
    {
      c->body_cap = clen + 1;
      c->body = realloc(c->body, c->body_cap);
      if (c->body == NULL)
        floor_die("realloc");
    }
    memcpy(c->body, c->in + head_len, clen);
    blen = clen;
    used = head_len + clen;
  }
  else
  {
    /* Chunks until the last one; no trailers. */
    used = head_len;
    for (;;)
    {
      char *eol = memmem(c->in + used, c->in_len - used, "\r\n", 2);
      size_t size;

      if (eol == NULL)
        return 0;
      size = (size_t) strtoull(c->in + used, NULL, 16);
      if ((size_t) (eol + 2 - c->in) + size + 2 > c->in_len)
        return 0;
      if (blen + size + 1 > c->body_cap)
      {
        c->body_cap = (blen + size + 1) * 2;
        c->body = realloc(c->body, c->body_cap);
        if (c->body == NULL)
          floor_die("realloc");
      }
      memcpy(c->body + blen, eol + 2, size);
      blen += size;
      used = (size_t) (eol + 2 - c->in) + size + 2;
      if (size == 0)
        break;
    }
  }
  c->body[blen] = '\0';
  memmove(c->in, c->in + used, c->in_len - used);
  c->in_len -= used;
  *json = NULL;
  *len = 0;
  if (blen == 0)
    return 1;
  if (!sse)
  {
    *json = c->body;
    *len = blen;
    return 1;
  }
  /* One event: its data line is the message. */
  p = strstr(c->body, "data: ");
  if (p == NULL)
    return 1;
  p += 6;
  *json = p;
  *len = strcspn(p, "\n");
  return 1;
}

/* One read(2) into c->in; returns the bytes read. */
static void
hf_fill(hf_conn_t *c)
{
  ssize_t n;

  if (c->in_cap - c->in_len < HF_CHUNK / 2)
  {
    c->in_cap *= 2;
    c->in = realloc(c->in, c->in_cap);
    if (c->in == NULL)
      floor_die("realloc");
  }
  do
    n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    floor_die("read: the server closed the connection");
  c->in_len += (size_t) n;
}

/* Blocks until one response is there. */
static void
hf_read_response(hf_conn_t *c, const char **json, size_t *len, int *status)
{
  while (!hf_take_response(c, json, len, status))
    hf_fill(c);
}

/* One call on c, blocking. */
static void
hf_call(hf_conn_t *c, int id)
{
  const char *json;
  size_t len;
  int status;

  hf_post_call(c, id);
  hf_read_response(c, &json, &len, &status);
  if (status != 200 || json == NULL)
  {
    errno = 0;
    floor_die("tools/call: not a 200 with a message");
  }
  floor_check_echo(json, len);
}

int
main(int argc, char **argv)
{
  static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
    "\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"http_floor\","
    "\"version\":\"1\"}}}";
  static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":"
    "\"notifications/initialized\"}";
  hf_conn_t seq;
  hf_conn_t *pool;
  struct pollfd *pfd;
  floor_opts_t opts;
  int calls;
  int inflight_calls;
  int window;
  double *lat;
  double t0;
  double t1;
  const char *json;
  size_t len;
  int status;
  int i;
  int next;
  int done;

  floor_program = "http_floor";
  if (argc < 2)
  {
    fprintf(stderr, "usage: http_floor URL [--calls N] [--inflight-calls N] "
      "[--window W]\n");
    return 2;
  }
  floor_parse_opts(argc, argv, &opts);
  calls = opts.calls;
  inflight_calls = opts.inflight_calls;
  window = opts.window;
  hf_parse_url(argv[1]);

  /* The handshake, untimed. */
  hf_connect(&seq);
  hf_post(&seq, init, sizeof init - 1);
  hf_read_response(&seq, &json, &len, &status);
  if (status != 200 || hf_session[0] == '\0')
    floor_die("initialize: no session");
  hf_post(&seq, initialized, sizeof initialized - 1);
  hf_read_response(&seq, &json, &len, &status);

  lat = malloc(sizeof *lat * (size_t) (calls > inflight_calls ? calls
    : inflight_calls));
  pool = calloc((size_t) window, sizeof *pool);
  pfd = calloc((size_t) window, sizeof *pfd);
  if (lat == NULL || pool == NULL || pfd == NULL)
    floor_die("malloc");

  /* Warm-up, then sequential round trips on one connection. */
  for (i = 0; i < 200; i++)
    hf_call(&seq, i + 1);
  printf("{\n");
  t0 = floor_now_us();
  for (i = 0; i < calls; i++)
  {
    double s = floor_now_us();

    hf_call(&seq, i + 1);
    lat[i] = floor_now_us() - s;
  }
  t1 = floor_now_us();
  floor_report("seq", lat, calls, (t1 - t0) / 1e6, 1, 0);

  /* W connections, one call in flight on each; connected (and warmed with
   * one call) before the clock starts, as a client's warm pool. */
  for (i = 0; i < window; i++)
  {
    hf_connect(&pool[i]);
    hf_call(&pool[i], 1);
    pfd[i].fd = pool[i].fd;
    pfd[i].events = POLLIN;
  }
  t0 = floor_now_us();
  next = 0;
  done = 0;
  for (i = 0; i < window && next < inflight_calls; i++, next++)
  {
    pool[i].sent_us = floor_now_us();
    hf_post_call(&pool[i], next);
  }
  while (done < inflight_calls)
  {
    if (poll(pfd, (nfds_t) window, -1) < 0)
    {
      if (errno == EINTR)
        continue;
      floor_die("poll");
    }
    for (i = 0; i < window; i++)
    {
      hf_conn_t *c = &pool[i];

      if (!(pfd[i].revents & (POLLIN | POLLERR | POLLHUP)))
        continue;
      hf_fill(c);
      while (hf_take_response(c, &json, &len, &status))
      {
        if (status != 200 || json == NULL)
        {
          errno = 0;
          floor_die("tools/call: not a 200 with a message");
        }
        floor_check_echo(json, len);
        lat[done++] = floor_now_us() - c->sent_us;
        if (next < inflight_calls)
        {
          c->sent_us = floor_now_us();
          hf_post_call(c, next++);
        }
      }
    }
  }
  t1 = floor_now_us();
  floor_report("inflight", lat, inflight_calls, (t1 - t0) / 1e6, window, 1);
  printf("}\n");
  return 0;
}
