/*
 * test_schema_suite.c - runs the official JSON-Schema-Test-Suite (the
 * required tests of draft2020-12 and draft7, not optional/) against the
 * validator in schema.c.
 *
 * Usage: test_schema_suite <suite dir>. Remote references to
 * http://localhost:1234/ are served from <suite dir>/remotes. The
 * metaschemas are not available as documents, so a case whose schema
 * needs one is skipped and printed with the reason; every other case must
 * pass. Prints "ok <draft>/<file>" for each file without failures, every
 * failing case with its failure, and the totals per draft; exits 1 if any
 * case failed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "error.h"
#include "schema.h"

#define REMOTE_PREFIX "http://localhost:1234/"

typedef struct suite_s {
  const char *dir;       /* the suite directory */
  char missing[512];     /* the last URI the resolver could not serve */
} suite_t;

typedef struct totals_s {
  int passed, failed, skipped;
} totals_t;

/* Reads a whole file; the caller frees the result. */
static char *
read_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long len;

  if (f == NULL)
    return NULL;
  len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (len >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    buf = malloc((size_t) len + 1);
    if (buf != NULL) {
      if (fread(buf, 1, (size_t) len, f) != (size_t) len) {
        free(buf);
        buf = NULL;
      } else {
        buf[len] = '\0';
      }
    }
  }
  fclose(f);
  return buf;
}

static cJSON *
load_json(const char *path)
{
  char *text = read_file(path);
  cJSON *doc;

  if (text == NULL)
    return NULL;
  doc = cJSON_Parse(text);
  free(text);
  return doc;
}

/* The resolver: serves REMOTE_PREFIX from remotes/, and remembers what it
 * could not serve so the case can be skipped with a reason. */
static cJSON *
resolve(void *ud, const char *uri)
{
  suite_t *st = ud;
  char path[1024];
  cJSON *doc = NULL;

  if (strncmp(uri, REMOTE_PREFIX, strlen(REMOTE_PREFIX)) == 0) {
    snprintf(path, sizeof path, "%s/remotes/%s", st->dir,
             uri + strlen(REMOTE_PREFIX));
    doc = load_json(path);
  }
  if (doc == NULL)
    snprintf(st->missing, sizeof st->missing, "%s", uri);
  return doc;
}

static int
is_metaschema(const char *uri)
{
  return strncmp(uri, "http://json-schema.org/", 23) == 0 ||
         strncmp(uri, "https://json-schema.org/", 24) == 0;
}

static int
by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *) a, *(char *const *) b);
}

static const char *
str_of(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

  return cJSON_IsString(v) ? v->valuestring : "?";
}

/* Runs one file; returns the number of failed cases. */
static int
run_file(suite_t *st, const char *draft, const char *name, totals_t *tot)
{
  char path[1024];
  cJSON *doc, *group;
  int failed = 0;

  snprintf(path, sizeof path, "%s/tests/%s/%s", st->dir, draft, name);
  doc = load_json(path);
  if (doc == NULL) {
    printf("FAIL %s/%s: cannot read or parse\n", draft, name);
    tot->failed++;
    return 1;
  }
  cJSON_ArrayForEach(group, doc) {
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(group, "schema");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(group, "tests");
    const cJSON *t;
    cJSON *copy = NULL;
    mcp_schema_t *s = NULL;
    mcp_schema_opts_t opts;
    mcp_error_t err;
    int rc;

    /* draft7 files do not name their dialect; the default is 2020-12. */
    if (strcmp(draft, "draft7") == 0 && cJSON_IsObject(schema) &&
        !cJSON_HasObjectItem(schema, "$schema")) {
      copy = cJSON_Duplicate(schema, 1);
      cJSON_AddStringToObject(copy, "$schema",
                              "http://json-schema.org/draft-07/schema#");
      schema = copy;
    }
    memset(&opts, 0, sizeof opts);
    opts.resolve = resolve;
    opts.resolve_ud = st;
    st->missing[0] = '\0';
    memset(&err, 0, sizeof err);
    rc = mcp_schema_compile(schema, &opts, &s, &err);
    cJSON_ArrayForEach(t, tests) {
      const cJSON *data = cJSON_GetObjectItemCaseSensitive(t, "data");
      int want = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "valid"));
      mcp_schema_failure_t why;
      int vr;

      if (rc < 0 && st->missing[0] != '\0' && is_metaschema(st->missing)) {
        printf("skip %s/%s: %s: %s: needs %s\n", draft, name,
               str_of(group, "description"), str_of(t, "description"),
               st->missing);
        tot->skipped++;
        continue;
      }
      if (rc < 0) {
        printf("FAIL %s/%s: %s: %s: compile error %s: %s\n", draft, name,
               str_of(group, "description"), str_of(t, "description"),
               mcp_err_name(rc), err.msg);
        tot->failed++;
        failed++;
        continue;
      }
      vr = mcp_schema_validate(s, data, &why);
      if ((vr == 0 && want) || (vr == MCP_ESCHEMA && !want)) {
        tot->passed++;
        continue;
      }
      printf("FAIL %s/%s: %s: %s: expected %s, got %s", draft, name,
             str_of(group, "description"), str_of(t, "description"),
             want ? "valid" : "invalid",
             vr == 0 ? "valid" : mcp_err_name(vr));
      if (vr != 0)
        printf(" at \"%s\" keyword %s (%s): %s", why.instance_path,
               why.keyword, why.schema_path, why.message);
      printf("\n");
      tot->failed++;
      failed++;
    }
    mcp_schema_free(s);
    cJSON_Delete(copy);
  }
  cJSON_Delete(doc);
  if (failed == 0)
    printf("ok %s/%s\n", draft, name);
  fflush(stdout);
  return failed;
}

static int
run_draft(suite_t *st, const char *draft)
{
  char path[1024];
  DIR *d;
  struct dirent *e;
  char **names = NULL;
  size_t n = 0, i;
  totals_t tot = {0, 0, 0};

  snprintf(path, sizeof path, "%s/tests/%s", st->dir, draft);
  d = opendir(path);
  if (d == NULL) {
    printf("FAIL %s: cannot open %s\n", draft, path);
    return 1;
  }
  for (e = readdir(d); e != NULL; e = readdir(d)) {
    size_t len = strlen(e->d_name);
    char **nn;

    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
      continue;
    nn = realloc(names, (n + 1) * sizeof *names);
    if (nn == NULL)
      break;
    names = nn;
    names[n] = malloc(len + 1);
    if (names[n] == NULL)
      break;
    memcpy(names[n++], e->d_name, len + 1);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  for (i = 0; i < n; i++) {
    run_file(st, draft, names[i], &tot);
    free(names[i]);
  }
  free(names);
  printf("# %s: passed %d, failed %d, skipped %d\n", draft, tot.passed,
         tot.failed, tot.skipped);
  return tot.failed > 0 || n == 0;
}

int
main(int argc, char **argv)
{
  suite_t st;
  int bad = 0;

  if (argc < 2) {
    fprintf(stderr, "usage: %s <JSON-Schema-Test-Suite dir>\n", argv[0]);
    return 2;
  }
  memset(&st, 0, sizeof st);
  st.dir = argv[1];
  bad |= run_draft(&st, "draft2020-12");
  bad |= run_draft(&st, "draft7");
  return bad ? 1 : 0;
}
