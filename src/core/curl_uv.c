/*
 * curl_uv.c - one CURLM driven by a uv_loop_t, as curl's multi-uv example.
 *
 * libcurl tells us what to watch (CURLMOPT_SOCKETFUNCTION: one uv_poll_t
 * per socket, kept with curl_multi_assign) and when to wake it
 * (CURLMOPT_TIMERFUNCTION: one non-repeating uv_timer_t). The loop calls
 * curl_multi_socket_action from those handles' callbacks, and only there;
 * after every call the engine delivers the queued flushes and drains
 * curl_multi_info_read. Owners therefore run outside libcurl, and may add,
 * cancel or free transfers without CURLM_RECURSIVE_API_CALL.
 *
 * Memory: poll contexts are freed in their uv_close callbacks; the engine
 * frees itself after its last handle closed (see mcp_curl_uv_close).
 */
#include "curl_uv.h"

#include <stdlib.h>
#include <unistd.h>

#include "common.h"

/* A socket's poll handle lives as long as the socket, not as one transfer:
 * libcurl REMOVEs a kept-alive connection's socket after every transfer
 * and adds it again for the next one, and a uv_poll_t per transfer cost
 * an ioctl and several epoll_ctl calls per request. The engine closes the
 * handle when libcurl closes the socket (CURLOPT_CLOSESOCKETFUNCTION). */
typedef struct poll_ctx_s {
  uv_poll_t poll;
  curl_socket_t fd;
  mcp_curl_uv_t *cu;
  struct poll_ctx_s *prev, *next;  /* the engine's live polls */
  int events;                      /* UV_READABLE|UV_WRITABLE polled now */
  unsigned wanted : 1;             /* libcurl watches the socket */
} poll_ctx_t;

/* Easy handles kept for reuse: curl_easy_reset is much cheaper than
 * curl_easy_cleanup + curl_easy_init on every request. */
#define EASY_POOL 64

struct mcp_curl_uv_s {
  uv_loop_t *loop;
  CURLM *multi;                    /* NULL after curl_multi_cleanup */
  uv_timer_t timer;                /* CURLMOPT_TIMERFUNCTION */
  uv_timer_t defer;                /* runs the completions of cancels */
  poll_ctx_t *polls;               /* live (not closing) poll contexts */
  poll_ctx_t **by_fd;              /* the same, indexed by socket */
  size_t nby_fd;
  mcp_curl_xfer_t *xfers;          /* attached transfers */
  size_t nxfers;
  mcp_curl_xfer_t *mark_head, *mark_tail;  /* flushes due */
  mcp_curl_xfer_t *done_head, *done_tail;  /* cancelled, completion due */
  int open_handles;                /* handles whose close callback is due */
  int in_action;                   /* inside curl_multi_socket_action */
  CURL *spare[EASY_POOL];          /* reset easy handles, for reuse */
  int nspare;
  unsigned closing : 1;
};

static int curl_ready;             /* curl_global_init was called */

static void after_action(mcp_curl_uv_t *cu);
static int on_close_socket(void *clientp, curl_socket_t s);

/* ---- handle lifetime ----------------------------------------------------- */

static void
engine_free_if_done(mcp_curl_uv_t *cu)
{
  if (cu->closing && cu->open_handles == 0) {
    free(cu->by_fd);
    free(cu);
  }
}

static void
on_timer_closed(uv_handle_t *h)
{
  mcp_curl_uv_t *cu = h->data;

  cu->open_handles--;
  engine_free_if_done(cu);
}

static void
on_poll_closed(uv_handle_t *h)
{
  poll_ctx_t *p = h->data;
  mcp_curl_uv_t *cu = p->cu;

  free(p);
  cu->open_handles--;
  engine_free_if_done(cu);
}

static void
poll_close(poll_ctx_t *p)
{
  mcp_curl_uv_t *cu = p->cu;

  if ((size_t) p->fd < cu->nby_fd && cu->by_fd[p->fd] == p)
    cu->by_fd[p->fd] = NULL;
  if (p->prev != NULL)
    p->prev->next = p->next;
  else
    cu->polls = p->next;
  if (p->next != NULL)
    p->next->prev = p->prev;
  p->prev = p->next = NULL;
  uv_poll_stop(&p->poll);
  uv_close((uv_handle_t *) &p->poll, on_poll_closed);
}

/* The engine's handles keep the loop alive only while a transfer is
 * attached: an idle pooled connection must not stop the loop from ending. */
static void
set_refs(mcp_curl_uv_t *cu, int on)
{
  poll_ctx_t *p;

  if (on) {
    uv_ref((uv_handle_t *) &cu->timer);
    uv_ref((uv_handle_t *) &cu->defer);
  } else {
    uv_unref((uv_handle_t *) &cu->timer);
    uv_unref((uv_handle_t *) &cu->defer);
  }
  for (p = cu->polls; p != NULL; p = p->next) {
    if (on)
      uv_ref((uv_handle_t *) &p->poll);
    else
      uv_unref((uv_handle_t *) &p->poll);
  }
}

/* ---- queues -------------------------------------------------------------- */

static void
mark_unlink(mcp_curl_uv_t *cu, mcp_curl_xfer_t *x)
{
  mcp_curl_xfer_t **pp, *prev = NULL;

  if (!x->marked)
    return;
  for (pp = &cu->mark_head; *pp != NULL; prev = *pp, pp = &(*pp)->mark_next) {
    if (*pp == x) {
      *pp = x->mark_next;
      if (cu->mark_tail == x)
        cu->mark_tail = prev;
      break;
    }
  }
  x->mark_next = NULL;
  x->marked = 0;
}

static void
done_unlink(mcp_curl_uv_t *cu, mcp_curl_xfer_t *x)
{
  mcp_curl_xfer_t **pp, *prev = NULL;

  for (pp = &cu->done_head; *pp != NULL; prev = *pp, pp = &(*pp)->done_next) {
    if (*pp == x) {
      *pp = x->done_next;
      if (cu->done_tail == x)
        cu->done_tail = prev;
      break;
    }
  }
  x->done_next = NULL;
}

/* ---- transfers ----------------------------------------------------------- */

static void
remove_from_multi(mcp_curl_uv_t *cu, mcp_curl_xfer_t *x)
{
  if (x->in_multi) {
    x->in_multi = 0;
    curl_multi_remove_handle(cu->multi, x->easy);
  }
}

/* Detaches x and reports it. Never called from inside libcurl. */
static void
complete(mcp_curl_uv_t *cu, mcp_curl_xfer_t *x, CURLcode rc)
{
  remove_from_multi(cu, x);
  mark_unlink(cu, x);
  if (x->cancelled)
    done_unlink(cu, x);
  if (x->prev != NULL)
    x->prev->next = x->next;
  else
    cu->xfers = x->next;
  if (x->next != NULL)
    x->next->prev = x->prev;
  x->prev = x->next = NULL;
  x->attached = 0;
  if (--cu->nxfers == 0 && !cu->closing)
    set_refs(cu, 0);
  x->on_done(x, rc);   /* may free x */
}

int
mcp_curl_uv_add(mcp_curl_uv_t *cu, mcp_curl_xfer_t *x, mcp_error_t *err)
{
  CURLMcode mrc;

  if (cu->closing || x->attached)
    return mcp_error_set(err, MCP_EINVAL, "HTTP engine is closing");
  x->cu = cu;
  x->marked = x->cancelled = 0;
  x->mark_next = x->done_next = NULL;
  curl_easy_setopt(x->easy, CURLOPT_PRIVATE, (void *) x);
  /* A connection keeps the close function of the transfer that opened it. */
  curl_easy_setopt(x->easy, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
  curl_easy_setopt(x->easy, CURLOPT_CLOSESOCKETDATA, (void *) cu);
  /* This arms the timer (timeout 0 -> 1 ms); the transfer starts from the
   * loop, never inside this call. */
  mrc = curl_multi_add_handle(cu->multi, x->easy);
  if (mrc != CURLM_OK)
    return mcp_error_set(err, MCP_EIO, "curl_multi_add_handle: %s",
                         curl_multi_strerror(mrc));
  x->in_multi = 1;
  x->attached = 1;
  x->prev = NULL;
  x->next = cu->xfers;
  if (cu->xfers != NULL)
    cu->xfers->prev = x;
  cu->xfers = x;
  if (cu->nxfers++ == 0)
    set_refs(cu, 1);
  return 0;
}

static void
on_defer(uv_timer_t *t)
{
  mcp_curl_uv_t *cu = t->data;
  mcp_curl_xfer_t *x;

  while ((x = cu->done_head) != NULL)
    complete(cu, x, CURLE_ABORTED_BY_CALLBACK);  /* unlinks x */
}

void
mcp_curl_uv_cancel(mcp_curl_xfer_t *x)
{
  mcp_curl_uv_t *cu = x->cu;

  if (!x->attached || x->cancelled)
    return;
  x->cancelled = 1;
  mark_unlink(cu, x);
  /* Inside socket_action the removal waits for after_action. */
  if (!cu->in_action)
    remove_from_multi(cu, x);
  x->done_next = NULL;
  if (cu->done_tail != NULL)
    cu->done_tail->done_next = x;
  else
    cu->done_head = x;
  cu->done_tail = x;
  uv_timer_start(&cu->defer, on_defer, 0, 0);
}

void
mcp_curl_uv_mark(mcp_curl_xfer_t *x)
{
  mcp_curl_uv_t *cu = x->cu;

  if (x->marked || x->cancelled || !x->attached)
    return;
  x->marked = 1;
  x->mark_next = NULL;
  if (cu->mark_tail != NULL)
    cu->mark_tail->mark_next = x;
  else
    cu->mark_head = x;
  cu->mark_tail = x;
}

size_t
mcp_curl_uv_count(const mcp_curl_uv_t *cu)
{
  return cu->nxfers;
}

/* ---- driving libcurl ----------------------------------------------------- */

static void
socket_action(mcp_curl_uv_t *cu, curl_socket_t fd, int flags)
{
  int running = 0;

  cu->in_action++;
  curl_multi_socket_action(cu->multi, fd, flags, &running);
  cu->in_action--;
  after_action(cu);
}

/* Runs after every curl_multi_socket_action: deferred removals, then the
 * owners' flushes, then every finished transfer. */
static void
after_action(mcp_curl_uv_t *cu)
{
  mcp_curl_xfer_t *x;
  CURLMsg *msg;
  CURL *easy;
  CURLcode rc;
  char *priv;
  int left;

  if (cu->in_action || cu->multi == NULL)
    return;
  for (x = cu->done_head; x != NULL; x = x->done_next)
    remove_from_multi(cu, x);
  while ((x = cu->mark_head) != NULL) {
    cu->mark_head = x->mark_next;
    if (cu->mark_head == NULL)
      cu->mark_tail = NULL;
    x->mark_next = NULL;
    x->marked = 0;
    x->on_flush(x);
  }
  while (cu->multi != NULL &&
         (msg = curl_multi_info_read(cu->multi, &left)) != NULL) {
    if (msg->msg != CURLMSG_DONE)
      continue;
    /* msg is invalid once the handle is removed: copy what we need. */
    easy = msg->easy_handle;
    rc = msg->data.result;
    priv = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
    x = (mcp_curl_xfer_t *) (void *) priv;
    if (x != NULL && x->attached)
      complete(cu, x, rc);
  }
}

static void
on_timeout(uv_timer_t *t)
{
  socket_action(t->data, CURL_SOCKET_TIMEOUT, 0);
}

static void
on_poll(uv_poll_t *h, int status, int events)
{
  poll_ctx_t *p = h->data;
  int flags = 0;

  if (!p->wanted) {
    /* An idle kept-alive connection became readable: the peer closed it
     * (or broke the protocol). Stop polling, or the level-triggered event
     * would spin; libcurl finds the connection dead when it next picks it
     * and closes it. */
    uv_poll_stop(&p->poll);
    p->events = 0;
    return;
  }
  if (status < 0) {
    flags = CURL_CSELECT_ERR;
  } else {
    if (events & UV_READABLE)
      flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
      flags |= CURL_CSELECT_OUT;
  }
  /* p may be closed during the call; its memory lives until the close
   * callback, and we do not touch it afterwards. */
  socket_action(p->cu, p->fd, flags);
}

/* CURLMOPT_TIMERFUNCTION: only (re)arms the timer; never calls libcurl. */
static int
on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
  mcp_curl_uv_t *cu = userp;

  MCP_UNUSED(multi);
  if (timeout_ms < 0) {
    uv_timer_stop(&cu->timer);
  } else {
    /* 0 means "as soon as possible". A 0 ms uv timer still fires from the
     * loop, never from inside libcurl; rounding it up to 1 ms (as curl's
     * multi-uv example does) cost every request a millisecond. */
    uv_timer_start(&cu->timer, on_timeout, (uint64_t) timeout_ms, 0);
  }
  return 0;
}

static poll_ctx_t *
poll_of_fd(mcp_curl_uv_t *cu, curl_socket_t s)
{
  return (size_t) s < cu->nby_fd ? cu->by_fd[s] : NULL;
}

static poll_ctx_t *
poll_new(mcp_curl_uv_t *cu, curl_socket_t s)
{
  poll_ctx_t *p;

  if ((size_t) s >= cu->nby_fd) {
    size_t n = cu->nby_fd ? cu->nby_fd : 64, i;
    poll_ctx_t **grown;

    while (n <= (size_t) s)
      n *= 2;
    grown = realloc(cu->by_fd, n * sizeof *grown);
    if (grown == NULL)
      return NULL;
    for (i = cu->nby_fd; i < n; i++)
      grown[i] = NULL;
    cu->by_fd = grown;
    cu->nby_fd = n;
  }
  p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  if (uv_poll_init_socket(cu->loop, &p->poll, s) != 0) {
    free(p);
    return NULL;
  }
  p->poll.data = p;
  p->fd = s;
  p->cu = cu;
  p->next = cu->polls;
  if (cu->polls != NULL)
    cu->polls->prev = p;
  cu->polls = p;
  cu->by_fd[s] = p;
  cu->open_handles++;
  if (cu->nxfers == 0)
    uv_unref((uv_handle_t *) &p->poll);
  return p;
}

/* Polls p for events, unless it already does: every uv_poll_start costs
 * epoll_ctl calls, even with the same events. */
static void
poll_set(poll_ctx_t *p, int events)
{
  if (p->events == events)
    return;
  p->events = events;
  if (events == 0)
    uv_poll_stop(&p->poll);
  else
    uv_poll_start(&p->poll, events, on_poll);
}

/* CURLMOPT_SOCKETFUNCTION: one uv_poll_t per socket. */
static int
on_curl_socket(CURL *easy, curl_socket_t s, int what, void *userp,
               void *socketp)
{
  mcp_curl_uv_t *cu = userp;
  poll_ctx_t *p = socketp;
  int events = 0;

  MCP_UNUSED(easy);
  switch (what) {
  case CURL_POLL_IN:
  case CURL_POLL_OUT:
  case CURL_POLL_INOUT:
    if (p == NULL) {
      if (cu->closing)
        return -1;
      p = poll_of_fd(cu, s);
      if (p == NULL && (p = poll_new(cu, s)) == NULL)
        return -1;
      curl_multi_assign(cu->multi, s, p);
    }
    if (what != CURL_POLL_IN)
      events |= UV_WRITABLE;
    if (what != CURL_POLL_OUT)
      events |= UV_READABLE;
    p->wanted = 1;
    poll_set(p, events);
    break;
  case CURL_POLL_REMOVE:
    /* The socket stays open (a kept-alive connection), or libcurl is about
     * to close it (on_close_socket). Polling it for reading meanwhile
     * notices a peer that closes an idle connection. */
    if (p != NULL) {
      p->wanted = 0;
      poll_set(p, UV_READABLE);
    }
    break;
  default:
    break;
  }
  return 0;
}

/* CURLOPT_CLOSESOCKETFUNCTION of every transfer: the socket's poll handle
 * is closed first, while the descriptor is still open. */
static int
on_close_socket(void *clientp, curl_socket_t s)
{
  poll_ctx_t *p = poll_of_fd(clientp, s);

  if (p != NULL)
    poll_close(p);
  return close(s);
}

/* ---- the engine ---------------------------------------------------------- */

int
mcp_curl_uv_new(uv_loop_t *loop, mcp_curl_uv_t **out, mcp_error_t *err)
{
  mcp_curl_uv_t *cu;

  *out = NULL;
  if (mcp_curl_load(err) != 0)
    return err ? err->code : MCP_EIO;
  if (!curl_ready) {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      return mcp_error_set(err, MCP_EIO, "curl_global_init failed");
    curl_ready = 1;
  }
  cu = calloc(1, sizeof *cu);
  if (cu == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  cu->loop = loop;
  cu->multi = curl_multi_init();
  if (cu->multi == NULL) {
    free(cu);
    return mcp_error_set(err, MCP_ENOMEM, "curl_multi_init failed");
  }
  curl_multi_setopt(cu->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
  curl_multi_setopt(cu->multi, CURLMOPT_SOCKETDATA, cu);
  curl_multi_setopt(cu->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
  curl_multi_setopt(cu->multi, CURLMOPT_TIMERDATA, cu);
  /* libcurl's default pool is four connections per transfer in progress,
   * so a burst of requests leaves connections it then closes; keep enough
   * idle ones for 64 and more requests in flight to reuse. */
  curl_multi_setopt(cu->multi, CURLMOPT_MAXCONNECTS, 256L);
  uv_timer_init(loop, &cu->timer);
  uv_timer_init(loop, &cu->defer);
  cu->timer.data = cu;
  cu->defer.data = cu;
  cu->open_handles = 2;
  set_refs(cu, 0);
  *out = cu;
  return 0;
}

CURL *
mcp_curl_uv_easy(mcp_curl_uv_t *cu)
{
  if (cu->nspare > 0)
    return cu->spare[--cu->nspare];
  return curl_easy_init();
}

void
mcp_curl_uv_release_easy(mcp_curl_uv_t *cu, CURL *easy)
{
  if (cu->closing || cu->nspare == EASY_POOL) {
    curl_easy_cleanup(easy);
    return;
  }
  curl_easy_reset(easy);
  cu->spare[cu->nspare++] = easy;
}

void
mcp_curl_uv_close(mcp_curl_uv_t *cu)
{
  mcp_curl_xfer_t *x;

  if (cu->closing)
    return;
  cu->closing = 1;
  while ((x = cu->xfers) != NULL)
    complete(cu, x, CURLE_ABORTED_BY_CALLBACK);
  while (cu->nspare > 0)
    curl_easy_cleanup(cu->spare[--cu->nspare]);
  /* Its socket callback closes the polls of pooled connections; their
   * close callbacks run from the loop, so the loop outlives this call. */
  curl_multi_cleanup(cu->multi);
  cu->multi = NULL;
  while (cu->polls != NULL)
    poll_close(cu->polls);
  uv_timer_stop(&cu->defer);
  uv_close((uv_handle_t *) &cu->timer, on_timer_closed);
  uv_close((uv_handle_t *) &cu->defer, on_timer_closed);
}
