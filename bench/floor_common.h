/*
 * floor_common.h - what both floors of the benchmark share (bench/floor.c
 * over pipes, bench/http_floor.c over HTTP): dying with a message, the
 * clock, printing one echo request and checking its answer, and printing
 * a phase's figures.
 */
#ifndef BENCH_FLOOR_COMMON_H
#define BENCH_FLOOR_COMMON_H

#include <stddef.h>

/* The program's name, for floor_die's message. */
extern const char *floor_program;

/* Prints "<program>: what (errno's text)" and exits with status 2. */
void floor_die(const char *what);
/* Monotonic microseconds. */
double floor_now_us(void);
/* A tools/call echo request with this id, printed by cJSON (one line,
 * no line end); free it with cJSON_free. */
char *floor_echo_request(int id);
/* Parses one tools/call answer (JSON text), checks that it echoes
 * "hello", and returns its numeric id; dies otherwise. */
int floor_check_echo(const char *json, size_t len);
/* The floors' options after argv[1]: --calls N, --inflight-calls N and
 * --window W (20000, 20000 and 64 unless given), and --cold. Dies when a
 * count is below 1. */
typedef struct floor_opts_s
{
  int calls;
  int inflight_calls;
  int window;
  int cold;
} floor_opts_t;
void floor_parse_opts(int argc, char **argv, floor_opts_t *o);
/* Sorts lat (n latencies in µs) and prints the phase as one JSON member;
 * last: the final member (no comma). */
void floor_report(const char *name, double *lat, int n, double secs,
                  int window, int last);

#endif
