#ifndef FEEDLINE_CURL_H
#define FEEDLINE_CURL_H

#include <stddef.h>

/// One HTTP GET over libcurl's easy interface, for FeedCore's `CurlTransport`.
///
/// `curl_easy_setopt` is variadic, so Swift cannot call it: the whole request is made here and
/// handed back as plain buffers. A handle keeps its connection open for the next request to the
/// same host (keep-alive, one TLS handshake per host instead of one per page).

/// Why a request produced no response (0: it did).
typedef enum {
    FEEDLINE_CURL_OK = 0,
    FEEDLINE_CURL_TIMED_OUT = 1,
    FEEDLINE_CURL_CANNOT_CONNECT = 2,
    FEEDLINE_CURL_CANNOT_RESOLVE = 3,
    FEEDLINE_CURL_CONNECTION_LOST = 4,
    FEEDLINE_CURL_CANCELLED = 5,
    FEEDLINE_CURL_TOO_LARGE = 6,
    FEEDLINE_CURL_TLS = 7,
    FEEDLINE_CURL_OUT_OF_MEMORY = 8,
    FEEDLINE_CURL_OTHER = 9,
} feedline_curl_failure;

typedef struct {
    /// The response's status; 0 when there was none.
    long status;
    /// The body, in a malloc'd buffer that may be given before the call (`body_capacity` bytes,
    /// `body_length` 0) and is grown with realloc (the caller frees it, or hands it to `Data`).
    unsigned char *body;
    size_t body_length;
    size_t body_capacity;
    /// The final response's header lines ("Name: value\r\n" …), malloc'd, not NUL-terminated.
    char *headers;
    size_t headers_length;
    size_t headers_capacity;
    /// libcurl's own code (CURLcode) when `failure` is not OK, for the message.
    int curl_code;
    /// Bodies larger than this fail with FEEDLINE_CURL_TOO_LARGE.
    size_t max_body;
    /// Set to non-zero (with `feedline_curl_cancel`) from another thread to stop the transfer.
    int cancelled;
    /// Set when the body passed `max_body`, or its Content-Length announced that it would.
    int too_large;
    /// For a 3xx answer with a Location: the absolute URL it points to (malloc'd, NUL-terminated);
    /// NULL otherwise. Redirects are not followed here.
    char *redirect_url;
} feedline_curl_response;

/// Opens libcurl (`libcurl.so.4`, loaded on first use) and runs its process-wide set-up; call
/// once before any handle is made (not thread-safe). -1 when libcurl cannot be used: see
/// `feedline_curl_load_error`.
int feedline_curl_global_init(void);

/// Why `feedline_curl_global_init` failed (dlopen's message, or the symbol that is missing).
const char *feedline_curl_load_error(void);

/// A new easy handle (NULL when libcurl cannot make one).
void *feedline_curl_handle_new(void);
void feedline_curl_handle_free(void *handle);

/// Performs a GET of `url` with `header_count` extra "Name: value" lines. `idle_timeout_ms`
/// bounds connecting and any stretch without data; `total_timeout_ms` (0: none) the whole
/// transfer. Redirects are not followed: a 3xx answer comes back with `redirect_url` set, for
/// the caller to check and follow; compressed bodies are decoded; a body whose Content-Length
/// passes `max_body` is refused before it is received.
/// Blocks until done; returns a `feedline_curl_failure`. `out` must be zeroed except `max_body`
/// (and the body buffer, when one is given), and be released with `feedline_curl_response_free`
/// whatever the result.
int feedline_curl_get(void *handle, const char *url, const char *const *header_lines, size_t header_count,
                      long idle_timeout_ms, long total_timeout_ms, feedline_curl_response *out);

/// Asks a running `feedline_curl_get` on `out` to stop (it fails with FEEDLINE_CURL_CANCELLED).
void feedline_curl_cancel(feedline_curl_response *out);

/// Frees what `feedline_curl_get` allocated that the caller did not take (set `body` to NULL
/// after taking it).
void feedline_curl_response_free(feedline_curl_response *out);

/// libcurl's short description of a CURLcode.
const char *feedline_curl_describe(int curl_code);

#endif
