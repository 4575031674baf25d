/*
 * floor_common.c - what both benchmark floors share; see floor_common.h.
 */
#include "floor_common.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *floor_program = "floor";

void
floor_die(const char *what)
{
  fprintf(stderr, "%s: %s (%s)\n", floor_program, what,
    errno ? strerror(errno) : "-");
  exit(2);
}

void
floor_parse_opts(int argc, char **argv, floor_opts_t *o)
{
  int i;

  o->calls = 20000;
  o->inflight_calls = 20000;
  o->window = 64;
  o->cold = 0;
  for (i = 2; i < argc; i++)
  {
    if (strcmp(argv[i], "--cold") == 0)
      o->cold = 1;
    else if (i + 1 >= argc)
      break;
    else if (strcmp(argv[i], "--calls") == 0)
      o->calls = atoi(argv[++i]);
    else if (strcmp(argv[i], "--inflight-calls") == 0)
      o->inflight_calls = atoi(argv[++i]);
    else if (strcmp(argv[i], "--window") == 0)
      o->window = atoi(argv[++i]);
  }
  if (o->calls < 1 || o->inflight_calls < 1 || o->window < 1)
  {
    fprintf(stderr, "%s: counts must be positive\n", floor_program);
    exit(2);
  }
}

double
floor_now_us(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

char *
floor_echo_request(int id)
{
  cJSON *req = cJSON_CreateObject();
  cJSON *params;
  char *text;

  cJSON_AddStringToObject(req, "jsonrpc", "2.0");
  cJSON_AddNumberToObject(req, "id", id);
  cJSON_AddStringToObject(req, "method", "tools/call");
  params = cJSON_AddObjectToObject(req, "params");
  cJSON_AddStringToObject(params, "name", "echo");
  cJSON_AddStringToObject(cJSON_AddObjectToObject(params, "arguments"),
    "message", "hello");
  text = cJSON_PrintUnformatted(req);
  if (text == NULL)
    floor_die("cJSON_PrintUnformatted");
  cJSON_Delete(req);
  return text;
}

int
floor_check_echo(const char *json, size_t len)
{
  cJSON *res = cJSON_ParseWithLength(json, len);
  cJSON *id;
  cJSON *text;
  int n;

  if (res == NULL)
    floor_die("unparsable response");
  id = cJSON_GetObjectItemCaseSensitive(res, "id");
  text = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
    cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(res, "result"), "content"), 0), "text");
  if (!cJSON_IsNumber(id) || !cJSON_IsString(text)
      || strcmp(text->valuestring, "hello") != 0)
  {
    errno = 0;
    floor_die("unexpected response");
  }
  n = id->valueint;
  cJSON_Delete(res);
  return n;
}

static int
cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

void
floor_report(const char *name, double *lat, int n, double secs, int window,
  int last)
{
  qsort(lat, (size_t) n, sizeof *lat, cmp_double);
  printf("  \"%s\": {\"calls\": %d, \"concurrency\": %d, \"seconds\": %.6f, "
    "\"calls_per_s\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f}%s\n",
    name, n, window, secs, n / secs, lat[n / 2],
    lat[(int) ((double) n * 0.99)], last ? "" : ",");
}
