/*
 * peakrss.c - the peak resident memory of whole program runs, for the
 * host phase of the benchmark (tools/bench/host_list.mjs).
 *
 * Node cannot see a child's resource usage, and /usr/bin/time is not
 * installed everywhere. This program starts the command with
 * posix_spawnp, waits for it with wait4 and reads ru_maxrss: the peak RSS
 * of that process alone (the servers it starts are its children, not
 * counted). It runs the command REPS times and keeps the lowest peak (a
 * busy machine only ever adds). Its stdout goes to /dev/null; its stderr
 * is kept. Prints one JSON object {"peak_rss_kb", "reps", "status"}; the
 * exit status is 0 when every run exited 0. main owns everything.
 *
 * Usage: peakrss REPS -- CMD [ARGS...]
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Runs argv once; returns its peak RSS in KiB, or -1 when it could not
 * start or did not exit with status 0 (*status tells which). */
static long
pr_run(char **argv, posix_spawn_file_actions_t *fa, int *status)
{
  struct rusage ru;
  pid_t pid;
  int rc;
  int ws;

  rc = posix_spawnp(&pid, argv[0], fa, NULL, argv, environ);
  if (rc != 0)
  {
    fprintf(stderr, "peakrss: cannot start %s: %s\n", argv[0], strerror(rc));
    *status = 127;
    return -1;
  }
  if (wait4(pid, &ws, 0, &ru) < 0)
  {
    *status = 126;
    return -1;
  }
  *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  return *status == 0 ? ru.ru_maxrss : -1;
}

int
main(int argc, char **argv)
{
  posix_spawn_file_actions_t fa;
  long best = -1;
  int status = 0;
  int reps;
  int r;

  if (argc < 4 || strcmp(argv[2], "--") != 0)
  {
    fprintf(stderr, "usage: peakrss REPS -- CMD [ARGS...]\n");
    return 2;
  }
  reps = atoi(argv[1]);
  if (reps < 1)
    reps = 1;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY,
    0);
  for (r = 0; r < reps && status == 0; r++)
  {
    long kb = pr_run(&argv[3], &fa, &status);

    if (kb >= 0 && (best < 0 || kb < best))
      best = kb;
  }
  posix_spawn_file_actions_destroy(&fa);
  if (status != 0)
  {
    printf("{\"status\": %d}\n", status);
    return 1;
  }
  printf("{\"peak_rss_kb\": %ld, \"reps\": %d, \"status\": 0}\n", best, reps);
  return 0;
}
