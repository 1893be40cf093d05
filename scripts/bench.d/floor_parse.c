/* The parse floor of scripts/bench: the least a loader must do to find the values in an archive.
 *
 *   floor_parse xml DIR    every .xml file of DIR (name order) through libxml2's SAX2 parser (a
 *                          memory parser context per file, xmlParseDocument) with empty
 *                          callbacks: a zeroed xmlSAXHandler, initialised for SAX2, with
 *                          startElementNs / endElementNs / characters (and ignorableWhitespace)
 *                          set to functions that only keep the element depth and count the items
 *                          (elements at depth 4: response/body/items/item). No tree is built.
 *   floor_parse json DIR   every .json file of DIR (name order) through a byte scan in C that finds
 *                          the start and end of every value: every string (keys included, escapes
 *                          skipped), number and literal (true, false, null), and counts the items
 *                          (objects at depth 5: {"response":{"body":{"items":[{…}]}}}). No
 *                          validation, no decoding: only where each value is.
 *
 * Each file is read the way feedline reads a page: opened, fstat'ed and read with one read(2) of
 * its size into one buffer reused for every file (the archive is in the page cache: scripts/bench
 * reads it once first). Nothing is kept after a file.
 *
 * Prints: rows N files N bytes N values N wall S cpu S user S sys S checksum N
 *   rows: the items found; values: the text nodes delivered (XML) / the values found (JSON);
 *   checksum: the sum of every JSON value's start and end offsets (0 for XML), so that the
 *   scan's result is used;
 *   wall and CPU (user + sys, getrusage) of the timed phase: from before the first file is opened
 *   to after the last is parsed (the directory listing and libxml2's initialisation are outside).
 *
 * build: cc -O2 -o floor_parse floor_parse.c $(xml2-config --cflags --libs)
 */
#include <dirent.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long depth, items, text_nodes;

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
  (void)ctx; (void)localname; (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces;
  (void)nb_attributes; (void)nb_defaulted; (void)attributes;
  if (++depth == 4) items++;
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
  (void)ctx; (void)localname; (void)prefix; (void)uri;
  depth--;
}

static void on_text(void *ctx, const xmlChar *ch, int len) {
  (void)ctx; (void)ch; (void)len;
  text_nodes++;
}

static int parse_xml(const char *buf, size_t n, const char *path) {
  xmlSAXHandler sax;
  memset(&sax, 0, sizeof sax);
  sax.initialized = XML_SAX2_MAGIC;
  sax.startElementNs = on_start;
  sax.endElementNs = on_end;
  sax.characters = on_text;
  sax.ignorableWhitespace = on_text;
  depth = 0;
  /* What xmlSAXUserParseMemory does (deprecated from libxml2 2.12): a memory parser context with
   * our handler in place of the default one. It is a little faster than a push parser context fed
   * the whole file as one chunk (xmlCreatePushParserCtxt + xmlParseChunk(…, 1)). */
  xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(buf, (int)n);
  if (!ctxt) return -1;
  xmlSAXHandlerPtr own = ctxt->sax;
  ctxt->sax = &sax;
  ctxt->userData = NULL;
  xmlCtxtUseOptions(ctxt, XML_PARSE_NONET);
  int rc = xmlParseDocument(ctxt);
  int ok = rc == 0 && ctxt->wellFormed;
  ctxt->sax = own;
  xmlFreeParserCtxt(ctxt);
  (void)path;
  return ok ? 0 : -1;
}

/* JSON: the position of every value. `starts`/`ends` are folded into a sum so that the scan is
 * not optimised away; the sum is printed. */
static unsigned long long positions;
static long values;

static inline const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

static int parse_json(const char *buf, size_t n) {
  const char *p = buf, *end = buf + n;
  long d = 0;
  char stack[64];
  while ((p = skip_ws(p, end)) < end) {
    char c = *p;
    switch (c) {
      case '{': case '[':
        if (d == (long)sizeof stack) return -1;
        stack[d++] = c;
        if (c == '{' && d == 5) items++;
        p++;
        break;
      case '}': case ']':
        if (d == 0) return -1;
        d--;
        p++;
        break;
      case ',': case ':':
        p++;
        break;
      case '"': {
        const char *s = ++p;
        for (;;) {
          const char *q = memchr(p, '"', (size_t)(end - p));
          if (!q) return -1;
          const char *b = q;
          while (b > s && b[-1] == '\\') b--;
          p = q + 1;
          if (((q - b) & 1) == 0) break;   /* an even run of backslashes: the quote ends the string */
        }
        positions += (unsigned long long)(s - buf) + (unsigned long long)(p - 1 - buf);
        values++;
        break;
      }
      default: {
        const char *s = p;
        if (c == '-' || (c >= '0' && c <= '9')) {
          p++;
          while (p < end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')) p++;
        } else if (c == 't' && end - p >= 4 && memcmp(p, "true", 4) == 0) p += 4;
        else if (c == 'f' && end - p >= 5 && memcmp(p, "false", 5) == 0) p += 5;
        else if (c == 'n' && end - p >= 4 && memcmp(p, "null", 4) == 0) p += 4;
        else return -1;
        positions += (unsigned long long)(s - buf) + (unsigned long long)(p - buf);
        values++;
      }
    }
  }
  return d == 0 ? 0 : -1;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static double secs(struct timespec a, struct timespec b) { return (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9; }
static double tv(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "xml") && strcmp(argv[1], "json"))) {
    fprintf(stderr, "usage: floor_parse xml|json DIR\n");
    return 2;
  }
  int xml = strcmp(argv[1], "xml") == 0;
  const char *ext = xml ? ".xml" : ".json";
  size_t el = strlen(ext);
  DIR *dir = opendir(argv[2]);
  if (!dir) { perror(argv[2]); return 1; }
  char **files = NULL; size_t nf = 0; struct dirent *e;
  while ((e = readdir(dir))) {
    size_t l = strlen(e->d_name);
    if (l > el && strcmp(e->d_name + l - el, ext) == 0) {
      files = realloc(files, (nf + 1) * sizeof *files);
      files[nf] = malloc(strlen(argv[2]) + l + 2);
      sprintf(files[nf], "%s/%s", argv[2], e->d_name);
      nf++;
    }
  }
  closedir(dir);
  if (nf == 0) { fprintf(stderr, "no %s files in %s\n", ext, argv[2]); return 1; }
  qsort(files, nf, sizeof *files, cmp);
  if (xml) xmlInitParser();

  char *buf = NULL; size_t cap = 0; unsigned long long bytes = 0;
  struct timespec t0, t1; struct rusage r0, r1;
  clock_gettime(CLOCK_MONOTONIC, &t0); getrusage(RUSAGE_SELF, &r0);
  for (size_t i = 0; i < nf; i++) {
    int fd = open(files[i], O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) { perror(files[i]); return 1; }
    size_t n = (size_t)st.st_size;
    if (n + 1 > cap) { cap = n + 1; free(buf); buf = malloc(cap); if (!buf) return 1; }
    size_t got = 0;
    while (got < n) {
      ssize_t k = read(fd, buf + got, n - got);
      if (k <= 0) { perror(files[i]); return 1; }
      got += (size_t)k;
    }
    close(fd);
    bytes += n;
    if ((xml ? parse_xml(buf, n, files[i]) : parse_json(buf, n)) != 0) {
      fprintf(stderr, "%s: not well-formed\n", files[i]);
      return 1;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1); getrusage(RUSAGE_SELF, &r1);
  double user = tv(r1.ru_utime) - tv(r0.ru_utime), sys = tv(r1.ru_stime) - tv(r0.ru_stime);
  printf("rows %ld files %zu bytes %llu values %ld wall %.4f cpu %.4f user %.4f sys %.4f checksum %llu\n", items, nf,
         bytes, xml ? text_nodes : values, secs(t0, t1), user + sys, user, sys, positions);
  return 0;
}
