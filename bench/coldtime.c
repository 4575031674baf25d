/*
 * coldtime.c - times whole program runs for the cold-start phase.
 *
 * The driver could time programs itself, but node's spawnSync costs about
 * 6 ms per run (node forks a large process), which would be added to every
 * figure and hide the ratio. This small program starts each command with
 * posix_spawn, waits for it, and reports the wall time. The commands take
 * turns (one untimed round first, to warm the page cache), so that noise
 * from other work on the machine falls on all of them alike. Their stdout
 * goes to /dev/null; their stderr is kept. Prints one JSON array with one
 * {"median_ms","min_ms","reps","status"} per command, in order. main owns
 * everything; nothing is freed before exit.
 *
 * Usage: coldtime REPS -- CMD [ARGS...] [-- CMD [ARGS...]]...
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CT_MAX_CMDS 16

static double
ct_now_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int
ct_cmp(const void *a, const void *b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Runs argv once; returns its wall time in ms, or -1 when it could not
 * start or did not exit with status 0 (*status tells which). */
static double
ct_run(char **argv, posix_spawn_file_actions_t *fa, int *status)
{
  double t0 = ct_now_ms();
  pid_t pid;
  int rc;
  int ws;

  rc = posix_spawnp(&pid, argv[0], fa, NULL, argv, environ);
  if (rc != 0)
  {
    fprintf(stderr, "coldtime: cannot start %s: %s\n", argv[0], strerror(rc));
    *status = 127;
    return -1;
  }
  if (waitpid(pid, &ws, 0) < 0)
  {
    *status = 126;
    return -1;
  }
  *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  return *status == 0 ? ct_now_ms() - t0 : -1;
}

int
main(int argc, char **argv)
{
  char **cmds[CT_MAX_CMDS];
  double *samples[CT_MAX_CMDS];
  int status[CT_MAX_CMDS];
  posix_spawn_file_actions_t fa;
  int ncmds = 0;
  int reps;
  int i;
  int r;

  if (argc < 4 || strcmp(argv[2], "--") != 0)
  {
    fprintf(stderr, "usage: coldtime REPS -- CMD [ARGS...] [-- CMD ...]\n");
    return 2;
  }
  reps = atoi(argv[1]);
  if (reps < 1)
    reps = 1;
  /* Split argv at each "--" into NULL-terminated command vectors. */
  for (i = 2; i < argc; i++)
  {
    if (strcmp(argv[i], "--") == 0)
    {
      argv[i] = NULL;
      if (i + 1 < argc && ncmds < CT_MAX_CMDS)
        cmds[ncmds++] = &argv[i + 1];
    }
  }
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY,
    0);
  for (i = 0; i < ncmds; i++)
  {
    samples[i] = calloc((size_t) reps, sizeof *samples[i]);
    if (samples[i] == NULL)
      return 2;
    status[i] = 0;
  }
  for (r = -1; r < reps; r++)
  {
    for (i = 0; i < ncmds; i++)
    {
      double ms;

      if (status[i] != 0)
        continue;
      ms = ct_run(cmds[i], &fa, &status[i]);
      if (r >= 0 && ms >= 0)
        samples[i][r] = ms;
    }
  }
  printf("[");
  for (i = 0; i < ncmds; i++)
  {
    if (status[i] != 0)
    {
      printf("%s{\"status\": %d}", i ? ", " : "", status[i]);
      continue;
    }
    qsort(samples[i], (size_t) reps, sizeof *samples[i], ct_cmp);
    printf("%s{\"median_ms\": %.3f, \"min_ms\": %.3f, \"reps\": %d, "
      "\"status\": 0}", i ? ", " : "", reps % 2 ? samples[i][reps / 2]
      : (samples[i][reps / 2 - 1] + samples[i][reps / 2]) / 2, samples[i][0],
      reps);
  }
  printf("]\n");
  posix_spawn_file_actions_destroy(&fa);
  for (i = 0; i < ncmds; i++)
  {
    if (status[i] != 0)
      return 1;
  }
  return 0;
}
