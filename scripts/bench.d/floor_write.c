/* The write floor of scripts/bench: the least SQLite needs to store the rows a feedline load stored.
 *
 * usage: floor_write SOURCE_DB NEW_DB TABLE...
 *
 * SOURCE_DB is a database feedline has just loaded (a first load into a new file); TABLE... are
 * the tables that load wrote (scripts/bench: measurement station diagnostic payload bookmark).
 *
 * Untimed, first:
 *   1. every row of each TABLE is read from SOURCE_DB into memory, typed as SQLite stored it
 *      (integer, real, text, blob, null; text and blobs copied into one arena), in rowid order —
 *      the order feedline inserted them in;
 *   2. NEW_DB (which must not exist) is created with feedline's whole schema, copied from
 *      SOURCE_DB's sqlite_master (tables, then indexes, views and triggers: the same columns,
 *      CHECKs, UNIQUE constraints, indexes and triggers), and the rows of every other table
 *      (those the load did not write: the run ledger, the reference tables the migrations fill)
 *      are copied into it, so NEW_DB is what feedline's file was just before its load;
 *   3. the pragmas of feedline's first load into a new file (Sources/Storage: SQLiteStore.load and
 *      DirectFirstLoad): journal_mode = DELETE, synchronous = FULL, cache_size = -6144 (6 MiB),
 *      foreign_keys = ON; 4 KiB pages (SQLite's default, as feedline's); one prepared
 *      `INSERT INTO t (every column) VALUES (?, …)` per table.
 * Timed (CLOCK_MONOTONIC for wall, getrusage(RUSAGE_SELF) user + sys for CPU):
 *   BEGIN IMMEDIATE; for each TABLE in the order given, every row bound (sqlite3_bind_* from the
 *   typed values in memory, text without a copy) and stepped, one row per step; COMMIT.
 * Untimed, last: each table's row count in NEW_DB is checked against SOURCE_DB's, and every
 * column of every row (EXCEPT both ways); exit 1 if anything differs.
 *
 * Prints: rows N wall S cpu S user S sys S read_s S tables T=N:S,… (rows: the first TABLE's
 * rows; per table its rows and the wall seconds its inserts took inside the transaction; the
 * commit is in `wall`, not in any table's).
 *
 * build: cc -O2 -o floor_write floor_write.c -lsqlite3
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
  int type; /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL */
  int len;
  union { sqlite3_int64 i; double d; const char *p; } v;
} Value;

typedef struct {
  const char *name;
  int ncols;
  char **cols;
  long nrows;
  Value *values; /* nrows × ncols */
  double seconds;
  sqlite3_stmt *insert;
} Table;

/* Text and blobs live in big chunks that are never freed before the end. */
static char *arena; static size_t arena_left;
static const char *keep(const void *p, int n) {
  if ((size_t)n + 1 > arena_left) {
    size_t size = n + 1 > (1 << 24) ? (size_t)n + 1 : (1 << 24);
    arena = malloc(size);
    if (!arena) { fprintf(stderr, "out of memory\n"); exit(1); }
    arena_left = size;
  }
  char *out = arena;
  memcpy(out, p, (size_t)n);
  out[n] = 0;
  arena += n + 1; arena_left -= (size_t)n + 1;
  return out;
}

static void fail(sqlite3 *db, const char *what) {
  fprintf(stderr, "error: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
  exit(1);
}

static void exec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "error: %s: %s\n", sql, err ? err : "?");
    exit(1);
  }
}

static char *quoted(const char *name) { /* "name", with " doubled */
  char *out = malloc(2 * strlen(name) + 3), *o = out;
  *o++ = '"';
  for (const char *p = name; *p; p++) { if (*p == '"') *o++ = '"'; *o++ = *p; }
  *o++ = '"'; *o = 0;
  return out;
}

static long count_rows(sqlite3 *db, const char *table) {
  char *q = quoted(table), sql[512];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", q);
  free(q);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) fail(db, sql);
  long n = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return n;
}

static void read_table(sqlite3 *src, Table *t) {
  char *q = quoted(t->name), sql[1024];
  sqlite3_stmt *st;
  snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY rowid", q);
  if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK) {   /* a WITHOUT ROWID table */
    snprintf(sql, sizeof sql, "SELECT * FROM %s", q);
    if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK) fail(src, sql);
  }
  free(q);
  t->ncols = sqlite3_column_count(st);
  t->cols = malloc(sizeof *t->cols * (size_t)t->ncols);
  for (int c = 0; c < t->ncols; c++) t->cols[c] = strdup(sqlite3_column_name(st, c));
  long cap = 1024;
  t->values = malloc(sizeof *t->values * (size_t)cap * (size_t)t->ncols);
  t->nrows = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (t->nrows == cap) {
      cap *= 2;
      t->values = realloc(t->values, sizeof *t->values * (size_t)cap * (size_t)t->ncols);
      if (!t->values) { fprintf(stderr, "out of memory\n"); exit(1); }
    }
    Value *row = t->values + t->nrows * t->ncols;
    for (int c = 0; c < t->ncols; c++) {
      Value *v = &row[c];
      v->type = sqlite3_column_type(st, c);
      switch (v->type) {
        case SQLITE_INTEGER: v->v.i = sqlite3_column_int64(st, c); break;
        case SQLITE_FLOAT: v->v.d = sqlite3_column_double(st, c); break;
        case SQLITE_TEXT: v->v.p = keep(sqlite3_column_text(st, c), v->len = sqlite3_column_bytes(st, c)); break;
        case SQLITE_BLOB: v->len = sqlite3_column_bytes(st, c); v->v.p = keep(sqlite3_column_blob(st, c), v->len); break;
        default: break;
      }
    }
    t->nrows++;
  }
  if (rc != SQLITE_DONE) fail(src, sql);
  sqlite3_finalize(st);
}

static int is_timed(const char *name, Table *tables, int n) {
  for (int i = 0; i < n; i++) if (strcmp(tables[i].name, name) == 0) return 1;
  return 0;
}

/* The schema: tables first (creation order), then the rows of the tables the load does not write,
 * then indexes, views (repeated while one names a view made later) and triggers. */
static void copy_schema(sqlite3 *src, sqlite3 *dst, const char *src_path, Table *tables, int ntables) {
  static const char *kinds[] = {"table", "index", "view", "trigger"};
  for (int k = 0; k < 4; k++) {
    if (k == 1) { /* the rows the load did not write, before any index or trigger exists */
      exec(dst, "PRAGMA foreign_keys = OFF");
      char *attach = sqlite3_mprintf("ATTACH DATABASE %Q AS src", src_path);
      exec(dst, attach);
      sqlite3_free(attach);
      exec(dst, "BEGIN");
      sqlite3_stmt *st;
      if (sqlite3_prepare_v2(src, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                             " ORDER BY rowid", -1, &st, NULL) != SQLITE_OK) fail(src, "sqlite_master");
      while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (is_timed(name, tables, ntables)) continue;
        char *q = quoted(name);
        char *sql = sqlite3_mprintf("INSERT INTO main.%s SELECT * FROM src.%s", q, q);
        exec(dst, sql);
        sqlite3_free(sql); free(q);
      }
      sqlite3_finalize(st);
      exec(dst, "COMMIT");
      exec(dst, "DETACH DATABASE src");
    }
    int pending = 1, made = 1;
    while (pending && made) {
      pending = 0; made = 0;
      sqlite3_stmt *st;
      if (sqlite3_prepare_v2(src, "SELECT name, sql FROM sqlite_master WHERE type = ?1 AND sql IS NOT NULL"
                             " AND name NOT LIKE 'sqlite_%' ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
        fail(src, "sqlite_master");
      sqlite3_bind_text(st, 1, kinds[k], -1, SQLITE_STATIC);
      while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *sql = (const char *)sqlite3_column_text(st, 1);
        char check[512];
        snprintf(check, sizeof check, "SELECT 1 FROM sqlite_master WHERE type = '%s' AND name = ?1", kinds[k]);
        sqlite3_stmt *exists;
        sqlite3_prepare_v2(dst, check, -1, &exists, NULL);
        sqlite3_bind_text(exists, 1, name, -1, SQLITE_STATIC);
        int there = sqlite3_step(exists) == SQLITE_ROW;
        sqlite3_finalize(exists);
        if (there) continue;
        if (sqlite3_exec(dst, sql, NULL, NULL, NULL) == SQLITE_OK) made++;
        else if (k == 2) pending++;          /* a view on a view not made yet: the next pass */
        else { fprintf(stderr, "error: %s: %s\n", sql, sqlite3_errmsg(dst)); exit(1); }
      }
      sqlite3_finalize(st);
    }
    if (pending) { fprintf(stderr, "error: %d views could not be created\n", pending); exit(1); }
  }
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double tv(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: floor_write SOURCE_DB NEW_DB TABLE...\n"); return 2; }
  const char *src_path = argv[1], *dst_path = argv[2];
  struct stat sb;
  if (stat(dst_path, &sb) == 0) { fprintf(stderr, "error: %s exists (floor_write makes a new database)\n", dst_path); return 2; }
  int ntables = argc - 3;
  Table *tables = calloc((size_t)ntables, sizeof *tables);

  double r0 = now();
  sqlite3 *src;
  if (sqlite3_open_v2(src_path, &src, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) fail(src, src_path);
  for (int i = 0; i < ntables; i++) { tables[i].name = argv[3 + i]; read_table(src, &tables[i]); }
  double read_s = now() - r0;

  sqlite3 *dst;
  if (sqlite3_open(dst_path, &dst) != SQLITE_OK) fail(dst, dst_path);
  exec(dst, "PRAGMA journal_mode = DELETE");
  exec(dst, "PRAGMA synchronous = FULL");
  copy_schema(src, dst, src_path, tables, ntables);
  exec(dst, "PRAGMA foreign_keys = ON");
  exec(dst, "PRAGMA cache_size = -6144");
  for (int i = 0; i < ntables; i++) {
    Table *t = &tables[i];
    size_t size = 64 + strlen(t->name) * 2;
    for (int c = 0; c < t->ncols; c++) size += strlen(t->cols[c]) * 2 + 8;
    char *sql = malloc(size), *tq = quoted(t->name);
    int o = sprintf(sql, "INSERT INTO %s (", tq);
    free(tq);
    for (int c = 0; c < t->ncols; c++) { char *cq = quoted(t->cols[c]); o += sprintf(sql + o, "%s%s", c ? ", " : "", cq); free(cq); }
    o += sprintf(sql + o, ") VALUES (");
    for (int c = 0; c < t->ncols; c++) o += sprintf(sql + o, "%s?", c ? ", " : "");
    sprintf(sql + o, ")");
    if (sqlite3_prepare_v3(dst, sql, -1, SQLITE_PREPARE_PERSISTENT, &t->insert, NULL) != SQLITE_OK) fail(dst, sql);
    free(sql);
  }

  /* The timed phase: one transaction, every row. */
  struct rusage u0, u1;
  getrusage(RUSAGE_SELF, &u0);
  double t0 = now();
  exec(dst, "BEGIN IMMEDIATE");
  for (int i = 0; i < ntables; i++) {
    Table *t = &tables[i];
    sqlite3_stmt *st = t->insert;
    double s0 = now();
    for (long r = 0; r < t->nrows; r++) {
      const Value *row = t->values + r * t->ncols;
      for (int c = 0; c < t->ncols; c++) {
        const Value *v = &row[c];
        switch (v->type) {
          case SQLITE_INTEGER: sqlite3_bind_int64(st, c + 1, v->v.i); break;
          case SQLITE_FLOAT: sqlite3_bind_double(st, c + 1, v->v.d); break;
          case SQLITE_TEXT: sqlite3_bind_text(st, c + 1, v->v.p, v->len, SQLITE_STATIC); break;
          case SQLITE_BLOB: sqlite3_bind_blob(st, c + 1, v->v.p, v->len, SQLITE_STATIC); break;
          default: sqlite3_bind_null(st, c + 1);
        }
      }
      if (sqlite3_step(st) != SQLITE_DONE) fail(dst, t->name);
      sqlite3_reset(st);
    }
    t->seconds = now() - s0;
  }
  exec(dst, "COMMIT");
  double wall = now() - t0;
  getrusage(RUSAGE_SELF, &u1);
  double user = tv(u1.ru_utime) - tv(u0.ru_utime), sys = tv(u1.ru_stime) - tv(u0.ru_stime);

  int bad = 0;
  char *attach = sqlite3_mprintf("ATTACH DATABASE %Q AS src", src_path);
  exec(dst, attach);
  sqlite3_free(attach);
  for (int i = 0; i < ntables; i++) {
    long in_src = count_rows(src, tables[i].name), in_dst = count_rows(dst, tables[i].name);
    if (in_src != in_dst || in_dst != tables[i].nrows) {
      fprintf(stderr, "error: %s: %ld rows in %s, %ld read, %ld in %s\n", tables[i].name, in_src, src_path,
              tables[i].nrows, in_dst, dst_path);
      bad = 1;
      continue;
    }
    /* Every column of every row, both ways. */
    char *q = quoted(tables[i].name);
    char *sql = sqlite3_mprintf("SELECT (SELECT count(*) FROM (SELECT * FROM main.%s EXCEPT SELECT * FROM src.%s))"
                                " + (SELECT count(*) FROM (SELECT * FROM src.%s EXCEPT SELECT * FROM main.%s))", q, q, q, q);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(dst, sql, -1, &st, NULL) != SQLITE_OK) fail(dst, sql);
    long differ = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_free(sql); free(q);
    if (differ != 0) {
      fprintf(stderr, "error: %s: %ld rows differ between %s and %s\n", tables[i].name, differ, src_path, dst_path);
      bad = 1;
    }
  }
  printf("rows %ld wall %.4f cpu %.4f user %.4f sys %.4f read_s %.3f tables ", tables[0].nrows, wall, user + sys, user, sys,
         read_s);
  for (int i = 0; i < ntables; i++) printf("%s%s=%ld:%.4f", i ? "," : "", tables[i].name, tables[i].nrows, tables[i].seconds);
  printf("\n");
  for (int i = 0; i < ntables; i++) sqlite3_finalize(tables[i].insert);
  sqlite3_close(dst);
  sqlite3_close(src);
  return bad;
}
