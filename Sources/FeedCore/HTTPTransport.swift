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

    public init(status: Int, contentType: String?, body: Data) {
        self.status = status; self.contentType = contentType; self.body = body
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
        return HTTPResponse(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), body: data)
    }
}
