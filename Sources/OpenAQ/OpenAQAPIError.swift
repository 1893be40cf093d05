import FeedCore
import Foundation
import Pipeline

/// Turns an OpenAQ error answer into a typed `FeedError`.
///
/// OpenAQ's error bodies carry no code of their own, only the HTTP status they came with and a
/// sentence, in one of two members: FastAPI's `{"detail": …}` or the gateway's `{"message": …}`.
/// The ones documented or read from the API's source:
///
/// | status | body | retry |
/// |---|---|---|
/// | 401 | `{"message": "Unauthorized. A valid API key must be provided in the X-API-Key header."}` (no key) | terminal |
/// | 401 | `{"detail": "Invalid credentials"}` (an unknown key) | terminal |
/// | 403 | `{"detail": "Forbidden"}` (a blocked key or address) | terminal |
/// | 404 | `{"detail": "Location not found"}` | terminal |
/// | 408 | `{"detail": "Connection timed out: Try to provide more specific query parameters or a smaller time frame."}` | transient |
/// | 410 | `{"detail": "Gone"}` (the retired `/v1`, `/v2` paths) | terminal |
/// | 422 | `{"detail": [{"loc": […], "msg": …, "type": …}]}` (a bad parameter) | terminal |
/// | 429 | `{"detail": "Too many requests"}` (over 60 a minute or 2,000 an hour) | transient |
/// | 5xx | `{"detail": "<what failed>"}` | transient |
///
/// In live runs an error comes with its HTTP status, which the fetch stage classifies (with the
/// same retryability) before the body is read; this mapping reads the bodies that reach the
/// decoder — an error behind HTTP 200, and saved answers in fixtures and replays — by the status
/// when the payload records one, else by what the sentence says. A body it cannot place is
/// terminal.
enum OpenAQAPIError {
    /// One kind of error answer: its status, name, what it means and what to do, whether a retry
    /// can help.
    struct Code: Sendable {
        let status: Int
        let name: String
        let meaning: String
        let retryability: Retryability
    }

    static let missingKey = Code(status: 401, name: "MISSING_API_KEY",
                                 meaning: "the request carried no X-API-Key header; set OPENAQ_API_KEY", retryability: .terminal)
    static let invalidKey = Code(status: 401, name: "INVALID_API_KEY",
                                 meaning: "OpenAQ does not know the key in X-API-Key; check OPENAQ_API_KEY (keys come from explore.openaq.org)",
                                 retryability: .terminal)
    static let forbidden = Code(status: 403, name: "FORBIDDEN",
                                meaning: "OpenAQ refuses this key or address (blocked); ask OpenAQ before retrying", retryability: .terminal)
    static let notFound = Code(status: 404, name: "NOT_FOUND",
                               meaning: "OpenAQ has no such location or sensor; check the pipeline's ids", retryability: .terminal)
    static let timeout = Code(status: 408, name: "TIMEOUT",
                              meaning: "OpenAQ's query timed out; retry later, or ask for a shorter window (window_hours) or fewer results",
                              retryability: .transient)
    static let gone = Code(status: 410, name: "GONE",
                           meaning: "this path belongs to a retired API version (v1, v2); feedline asks /v3 only, so check the base URL",
                           retryability: .terminal)
    static let validation = Code(status: 422, name: "VALIDATION_ERROR",
                                 meaning: "OpenAQ refused a parameter; fix the pipeline's parameters", retryability: .terminal)
    static let rateLimited = Code(status: 429, name: "RATE_LIMITED",
                                  meaning: "more than 60 calls a minute or 2,000 an hour on this key; waited out once, then retried",
                                  retryability: .transient)
    static let serverError = Code(status: 500, name: "SERVER_ERROR", meaning: "OpenAQ failed; retry later", retryability: .transient)
    static let unknown = Code(status: 0, name: "API_ERROR",
                              meaning: "an error answer this feed does not know; treated as not retryable", retryability: .terminal)

    /// The code for an HTTP status, when the payload records one.
    static func code(status: Int) -> Code? {
        switch status {
        case 401: invalidKey
        case 403: forbidden
        case 404: notFound
        case 408: timeout
        case 410: gone
        case 400, 422: validation
        case 429: rateLimited
        case 500...599: Code(status: status, name: serverError.name, meaning: serverError.meaning, retryability: .transient)
        default: nil
        }
    }

    /// The code a sentence names, when the status is not known.
    static func code(saying text: String, validationItems: Bool) -> Code {
        let t = text.lowercased()
        if validationItems { return validation }
        if t.contains("x-api-key") || (t.contains("api key") && (t.contains("provide") || t.contains("missing"))) { return missingKey }
        if t.contains("invalid credentials") || t.contains("invalid api key") || t.contains("unauthorized") { return invalidKey }
        if t.contains("too many requests") || t.contains("rate limit") { return rateLimited }
        if t.contains("timed out") || t.contains("timeout") { return timeout }
        if t.contains("forbidden") || t.contains("blocked") { return forbidden }
        if t.contains("not found") { return notFound }
        if t.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)) == "gone" || t.contains("no longer available") { return gone }
        if t.contains("field required") || t.contains("validation") || t.contains("unprocessable") { return validation }
        if t.contains("internal server error") || t.contains("bad gateway") || t.contains("service unavailable")
            || t.contains("gateway timeout") { return serverError }
        return unknown
    }

    /// The typed error for an error answer: `status` when the payload records a non-2xx one,
    /// `text` what it said (for a validation answer, its `loc: msg` items joined).
    static func error(status: Int?, text: String, validationItems: Bool, context: String?) -> FeedError {
        let code = status.flatMap { (200..<300).contains($0) ? nil : Self.code(status: $0) } ?? Self.code(saying: text, validationItems: validationItems)
        let said = text.isEmpty ? "" : " (“\(text)”)"
        let statusText = code.status == 0 ? "an error" : "error \(code.status)"
        // 429 is the minute's or the hour's window: waited for once, never looped.
        return FeedError(.api(code: code.status == 0 ? "" : String(code.status), name: code.name), code.retryability,
                         "OpenAQ answered with \(statusText)\(said): \(code.meaning).", context: context,
                         isRateLimited: code.status == 429)
    }
}

extension OpenAQFeed {
    /// A non-2xx answer read as OpenAQ words it: `{"detail": "…"}`, `{"message": "…"}` or a
    /// validation list `{"detail": [{"loc": […], "msg": "…"}]}`; a body that is none of these
    /// (an HTML gateway page) is typed by its status alone.
    public func httpError(status: Int, body: Data, context: String) -> FeedError? {
        let said = try? JSONDecoder().decode(OpenAQErrorBody.self, from: body)
        return OpenAQAPIError.error(status: status, text: said?.text ?? "", validationItems: said?.validation ?? false, context: context)
    }
}

/// The words of an OpenAQ error body.
struct OpenAQErrorBody: Decodable {
    var text: String
    var validation = false

    private enum Key: String, CodingKey { case detail, message }
    private struct Item: Decodable {
        var loc: [LocPart]?
        var msg: String?
    }
    /// A `loc` entry: a field name or a list index.
    private struct LocPart: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            text = (try? value.decode(String.self)) ?? (try? value.decode(Int.self)).map(String.init) ?? "?"
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let detail = try? c.decode(String.self, forKey: .detail) {
            text = detail
        } else if let items = try? c.decode([Item].self, forKey: .detail) {
            validation = true
            text = items.map { item in ((item.loc ?? []).map(\.text).joined(separator: ".")) + ": " + (item.msg ?? "") }.joined(separator: "; ")
        } else {
            text = try c.decode(String.self, forKey: .message)
        }
    }
}
