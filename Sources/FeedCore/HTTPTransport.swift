import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Pipeline

/// A received HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String?
    public var body: Data
    /// Response headers, names lowercased.
    public var headers: [String: String]

    public init(status: Int, contentType: String?, body: Data, headers: [String: String] = [:]) {
        self.status = status; self.contentType = contentType; self.body = body
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// Seconds the server asked to wait: `Retry-After` (seconds), else `x-ratelimit-reset`
    /// (seconds left in the window, as OpenAQ sends it). Nil when neither is a number.
    public var retryAfter: TimeInterval? {
        for name in ["retry-after", "x-ratelimit-reset"] {
            if let text = headers[name]?.trimmingCharacters(in: .whitespaces), let seconds = Double(text), seconds.isFinite, seconds >= 0 {
                return min(seconds, 3600)
            }
        }
        return nil
    }

    /// Whether the server said the current window has no calls left (`x-ratelimit-remaining: 0`).
    public var rateWindowUsedUp: Bool {
        headers["x-ratelimit-remaining"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } == 0
    }
}

/// Performs one HTTP GET. The live implementation is `URLSessionTransport`; tests use it too,
/// against a loopback server, or substitute their own.
public protocol HTTPTransport: Sendable {
    func get(_ url: URL, headers: [String: String]) async throws -> HTTPResponse
}

/// HTTP over Foundation's URLSession (libcurl on Linux), one session per transport, no caching,
/// no cookies, a per-request timeout.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession

    public init(timeout: TimeInterval = 30) {
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout * 4
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpCookieStorage = nil
        session = URLSession(configuration: config)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func get(_ url: URL, headers: [String: String]) async throws -> HTTPResponse {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            return HTTPResponse(status: 0, contentType: nil, body: data)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), body: data, headers: headers)
    }
}
