#include "feedline_curl.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libcurl is opened when the first request is made, not when feedline starts: with OpenSSL,
// GnuTLS, Kerberos, LDAP and the rest of what Debian's libcurl links, it maps about 30 shared
// libraries (some 6 MiB resident) that replays, queries and the waiting scheduler never use.
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *curl);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *curl);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
} api;

static char load_error[512];

static int load(void) {
    const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!library && i == 0) {
            const char *why = dlerror();
            snprintf(load_error, sizeof load_error, "%s", why ? why : "libcurl.so.4 could not be opened");
        }
    }
    if (!library) return -1;
    // Every function or none: a libcurl missing one is refused whole, and the library closed.
#define FIND(field, symbol)                                                                \
    do {                                                                                   \
        *(void **)&api.field = dlsym(library, symbol);                                     \
        if (!api.field) {                                                                  \
            snprintf(load_error, sizeof load_error, "the libcurl found has no %s", symbol); \
            memset(&api, 0, sizeof api);                                                   \
            dlclose(library);                                                              \
            return -1;                                                                     \
        }                                                                                  \
    } while (0)
    FIND(global_init, "curl_global_init");
    FIND(easy_init, "curl_easy_init");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_perform, "curl_easy_perform");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(easy_strerror, "curl_easy_strerror");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
#undef FIND
    return 0;
}

int feedline_curl_global_init(void) {
    if (load() != 0) return -1;
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "libcurl's global set-up failed");
        return -1;
    }
    return 0;
}

const char *feedline_curl_load_error(void) { return load_error; }

void *feedline_curl_handle_new(void) { return api.easy_init ? api.easy_init() : NULL; }

void feedline_curl_handle_free(void *handle) {
    if (handle && api.easy_cleanup) api.easy_cleanup((CURL *)handle);
}

static int is_cancelled(feedline_curl_response *out) {
    return __atomic_load_n(&out->cancelled, __ATOMIC_ACQUIRE) != 0;
}

void feedline_curl_cancel(feedline_curl_response *out) {
    __atomic_store_n(&out->cancelled, 1, __ATOMIC_RELEASE);
}

/// Appends `count` bytes to a malloc'd buffer, doubling its capacity (at least 64 KiB).
static int append(unsigned char **buffer, size_t *length, size_t *capacity, const void *bytes, size_t count) {
    if (count > (size_t)-1 - *length) return -1;
    size_t needed = *length + count;
    if (needed > *capacity) {
        size_t grown = *capacity < 65536 ? 65536 : *capacity;
        while (grown < needed) {
            if (grown > (size_t)-1 / 2) { grown = needed; break; }
            grown *= 2;
        }
        unsigned char *moved = realloc(*buffer, grown);
        if (!moved) return -1;
        *buffer = moved;
        *capacity = grown;
    }
    memcpy(*buffer + *length, bytes, count);
    *length = needed;
    return 0;
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    feedline_curl_response *out = context;
    size_t bytes = size * count;
    if (is_cancelled(out)) return CURL_WRITEFUNC_ERROR;
    if (out->body_length > out->max_body || bytes > out->max_body - out->body_length) {
        out->too_large = 1;
        return CURL_WRITEFUNC_ERROR;
    }
    if (append(&out->body, &out->body_length, &out->body_capacity, data, bytes) != 0) return CURL_WRITEFUNC_ERROR;
    return bytes;
}

static size_t on_header(char *data, size_t size, size_t count, void *context) {
    feedline_curl_response *out = context;
    size_t bytes = size * count;
    // A status line starts a response (a redirect's, an interim 1xx's, or the final one): only
    // the last response's headers are kept.
    if (bytes >= 5 && memcmp(data, "HTTP/", 5) == 0) out->headers_length = 0;
    if (out->headers_length + bytes > 1024 * 1024) return 0;  // absurd headers: fail the transfer
    if (append((unsigned char **)&out->headers, &out->headers_length, &out->headers_capacity, data, bytes) != 0) return 0;
    return bytes;
}

static int on_progress(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    return is_cancelled((feedline_curl_response *)context) ? 1 : 0;
}

static int classify(CURLcode code, feedline_curl_response *out) {
    switch (code) {
    case CURLE_OK: return FEEDLINE_CURL_OK;
    case CURLE_OPERATION_TIMEDOUT: return FEEDLINE_CURL_TIMED_OUT;
    case CURLE_COULDNT_CONNECT: return FEEDLINE_CURL_CANNOT_CONNECT;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return FEEDLINE_CURL_CANNOT_RESOLVE;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return FEEDLINE_CURL_CONNECTION_LOST;
    case CURLE_OUT_OF_MEMORY: return FEEDLINE_CURL_OUT_OF_MEMORY;
    case CURLE_FILESIZE_EXCEEDED:
        out->too_large = 1;
        return FEEDLINE_CURL_TOO_LARGE;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE: return FEEDLINE_CURL_TLS;
    case CURLE_ABORTED_BY_CALLBACK:
    case CURLE_WRITE_ERROR:
        if (is_cancelled(out)) return FEEDLINE_CURL_CANCELLED;
        if (out->too_large) return FEEDLINE_CURL_TOO_LARGE;
        // A refused write that is neither (a body that could not grow, absurd headers).
        return FEEDLINE_CURL_OTHER;
    default: return FEEDLINE_CURL_OTHER;
    }
}

int feedline_curl_get(void *handle, const char *url, const char *const *header_lines, size_t header_count,
                      long idle_timeout_ms, long total_timeout_ms, feedline_curl_response *out) {
    CURL *curl = handle;
    struct curl_slist *headers = NULL;
    for (size_t i = 0; i < header_count; i++) {
        struct curl_slist *grown = api.slist_append(headers, header_lines[i]);
        if (!grown) {
            api.slist_free_all(headers);
            out->curl_code = CURLE_OUT_OF_MEMORY;
            return FEEDLINE_CURL_OUT_OF_MEMORY;
        }
        headers = grown;
    }
    long idle_seconds = (idle_timeout_ms + 999) / 1000;
    if (idle_seconds < 1) idle_seconds = 1;

    api.easy_setopt(curl, CURLOPT_URL, url);
    api.easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    api.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    api.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    // Redirects are followed by the caller, one hop at a time, so each hop's host and scheme
    // can be checked before anything (a key in a header) is sent there.
    api.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    // A body the server announces as larger than the cap is refused from its Content-Length,
    // before any of it is received.
    api.easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(out->max_body < (size_t)0x7fffffffffffffffLL ? out->max_body : 0x7fffffffffffffffLL));
    api.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    api.easy_setopt(curl, CURLOPT_USERAGENT, "feedline");
    api.easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024L);
    api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, idle_timeout_ms);
    api.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    api.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, idle_seconds);
    api.easy_setopt(curl, CURLOPT_TIMEOUT_MS, total_timeout_ms > 0 ? total_timeout_ms : 0L);
    api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    api.easy_setopt(curl, CURLOPT_WRITEDATA, out);
    api.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    api.easy_setopt(curl, CURLOPT_HEADERDATA, out);
    api.easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    api.easy_setopt(curl, CURLOPT_XFERINFODATA, out);
    api.easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);

    CURLcode code = api.easy_perform(curl);
    api.easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    api.slist_free_all(headers);
    out->curl_code = (int)code;
    long status = 0;
    api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    out->status = status;
    char *location = NULL;
    if (code == CURLE_OK && status >= 300 && status < 400 && api.easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) {
        out->redirect_url = strdup(location);
    }
    return classify(code, out);
}

void feedline_curl_response_free(feedline_curl_response *out) {
    free(out->body);
    free(out->headers);
    free(out->redirect_url);
    out->body = NULL;
    out->headers = NULL;
    out->redirect_url = NULL;
    out->body_length = out->body_capacity = out->headers_length = out->headers_capacity = 0;
}

const char *feedline_curl_describe(int curl_code) {
    return api.easy_strerror ? api.easy_strerror((CURLcode)curl_code) : "libcurl is not loaded";
}
