import CCurl
import Foundation
import Pipeline

/// A received HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String?
    public var body: Data
    /// Response headers, names lowercased.
    public var headers: [String: String]
    /// For a 3xx answer with a `Location`: the absolute URL it points to (not yet followed).
    public var redirectLocation: URL?

    public init(status: Int, contentType: String?, body: Data, headers: [String: String] = [:], redirectLocation: URL? = nil) {
        self.status = status; self.contentType = contentType; self.body = body; self.redirectLocation = redirectLocation
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

/// Performs one HTTP GET. The live implementation is `CurlTransport`; tests use it too,
/// against a loopback server, or substitute their own.
public protocol HTTPTransport: Sendable {
    func get(_ url: URL, headers: [String: String]) async throws -> HTTPResponse
    /// The GET, following redirects only where `redirects` allows (`RedirectPolicy`).
    func get(_ url: URL, headers: [String: String], redirects: RedirectPolicy) async throws -> HTTPResponse
}

extension HTTPTransport {
    /// A transport that follows no redirects answers as without a policy.
    public func get(_ url: URL, headers: [String: String], redirects: RedirectPolicy) async throws -> HTTPResponse {
        try await get(url, headers: headers)
    }
}

/// Why a request got no response, as `CurlTransport` reports it (the words never include the
/// URL, so never a key in its query).
public struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case timedOut, cannotConnect, cannotResolveHost, connectionLost, tls, outOfMemory
        /// The body passed the transport's limit (bytes).
        case tooLarge(Int)
        /// A header the caller gave cannot be sent (a line break or NUL in its value, a bad name).
        case invalidHeader
        /// The HTTP library itself cannot be used (libcurl missing or incomplete): no retry helps.
        case unavailable
        /// A URL (the request's, or where a redirect leads) is not http or https.
        case unsupportedScheme(String, redirected: Bool)
        /// A redirect `RedirectPolicy` does not follow: the words say where and why.
        case redirectRefused(String)
        /// More redirects than the policy follows (a loop).
        case tooManyRedirects(Int)
        case other
    }
    public var kind: Kind
    /// libcurl's short description of what happened, when it is the source.
    public var detail: String?

    public init(_ kind: Kind, detail: String? = nil) { self.kind = kind; self.detail = detail }

    /// Whether asking again cannot give another answer: the library is missing, the body is over
    /// the cap, a header cannot be sent, or the URL or a redirect is refused.
    public var isTerminal: Bool {
        switch kind {
        case .unavailable, .tooLarge, .invalidHeader, .unsupportedScheme, .redirectRefused, .tooManyRedirects: return true
        case .timedOut, .cannotConnect, .cannotResolveHost, .connectionLost, .tls, .outOfMemory, .other: return false
        }
    }

    public var description: String {
        switch kind {
        case .timedOut: return "timed out"
        case .cannotConnect: return "could not connect to the host"
        case .cannotResolveHost: return "the host name could not be resolved"
        case .connectionLost: return "the connection was lost" + (detail.map { " (\($0))" } ?? "")
        case .tls: return "the TLS connection failed" + (detail.map { " (\($0))" } ?? "")
        case .outOfMemory: return "out of memory while receiving"
        case .tooLarge(let limit): return "the response is larger than \(limit / (1 << 20)) MiB"
        case .invalidHeader: return "a request header has a line break or NUL in its value, or an invalid name"
        case .unavailable: return detail ?? "the HTTP library could not be loaded"
        case .unsupportedScheme(let scheme, let redirected):
            return redirected ? "the server redirected to a URL with scheme '\(scheme)'; only http and https are followed"
                : "the URL's scheme is '\(scheme)'; only http and https URLs are fetched"
        case .redirectRefused(let why): return "the server redirected \(why)"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects (a redirect loop?)"
        case .other: return "network error" + (detail.map { " (\($0))" } ?? "")
        }
    }
}

/// HTTP GET over libcurl's easy interface, each request on a thread of its own (never a thread
/// of the concurrency pool: the call blocks until the last byte). No caching, no cookies;
/// gzip/deflate bodies decoded. Redirects are followed here, hop by hop, where a
/// `RedirectPolicy` allows (without one: any host, http and https only, at most 10). Connections
/// are kept for the next request to the same host.
///
/// Timeouts: `timeout` bounds connecting and any stretch without data (a stalled server), and
/// four times it the whole transfer. Bodies above `maxBodyBytes` fail instead of filling memory,
/// and one whose `Content-Length` says it would is refused before it is received.
/// A cancelled task stops its transfer within about a second.
public final class CurlTransport: HTTPTransport, @unchecked Sendable {
    public let timeout: TimeInterval
    public let maxBodyBytes: Int
    private let lock = NSLock()
    /// Easy handles between requests (each keeps its connections), at most `keptHandles`.
    private var idle: [UnsafeMutableRawPointer] = []
    private let keptHandles = 4
    /// Body buffers given back by the `Data` they were lent to, for the next response: a fresh
    /// megabyte per page costs a page fault per 4 KiB.
    private let buffers = BufferPool()

    private static let ready: Bool = feedline_curl_global_init() == 0

    public init(timeout: TimeInterval = 30, maxBodyBytes: Int = 256 << 20) {
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    deinit { for handle in idle { feedline_curl_handle_free(handle) } }

    public func get(_ url: URL, headers: [String: String]) async throws -> HTTPResponse {
        try await get(url, headers: headers, redirects: .open)
    }

    public func get(_ url: URL, headers: [String: String], redirects policy: RedirectPolicy) async throws -> HTTPResponse {
        try RedirectPolicy.checkScheme(url)
        var current = url
        var hop = 0
        while true {
            let response = try await single(current, headers: headers)
            guard (300..<400).contains(response.status), let next = response.redirectLocation else { return response }
            hop += 1
            try policy.check(hop: hop, from: current, to: next)
            current = next
        }
    }

    /// One GET, its redirect not followed.
    private func single(_ url: URL, headers: [String: String]) async throws -> HTTPResponse {
        try Task.checkCancellation()
        var lines: [String] = []
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, !name.contains(where: { $0 == ":" || $0.isWhitespace || $0.isNewline }),
                  !value.contains(where: { $0.isNewline || $0 == "\0" }) else { throw HTTPTransportError(.invalidHeader) }
            // "Name:" with nothing after it would tell libcurl to drop the header; "Name;" sends it empty.
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        let transfer = Transfer(maxBody: maxBodyBytes, buffer: buffers.take())
        let text = url.absoluteString, headerLines = lines
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, Error>) in
                let thread = Thread { continuation.resume(with: Result { try self.perform(text, headerLines, transfer) }) }
                thread.name = "feedline.http"
                thread.start()
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// The blocking part: one GET on a kept or new handle.
    private func perform(_ url: String, _ lines: [String], _ transfer: Transfer) throws -> HTTPResponse {
        guard Self.ready else {
            throw HTTPTransportError(.unavailable, detail: "libcurl could not be loaded (\(String(cString: feedline_curl_load_error()))); "
                                     + "live runs need it: install libcurl4 (Debian, Ubuntu) or libcurl (Fedora)")
        }
        guard let handle = takeHandle() else { throw HTTPTransportError(.other, detail: "libcurl could not start a transfer") }
        let cString = { (text: String) -> UnsafePointer<CChar>? in UnsafePointer(strdup(text)) }
        let headerPointers = lines.map(cString)
        defer { for pointer in headerPointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        let idleMs = max(1, Int(timeout * 1000))
        let result = headerPointers.withUnsafeBufferPointer { pointers in
            feedline_curl_get(handle, url, pointers.baseAddress, pointers.count, idleMs, idleMs * 4, transfer.response)
        }
        let response = transfer.response
        defer { feedline_curl_response_free(response) }
        guard result == Int32(FEEDLINE_CURL_OK.rawValue) else {
            // A failed transfer's connection is not trusted for the next request.
            feedline_curl_handle_free(handle)
            let detail = String(cString: feedline_curl_describe(response.pointee.curl_code))
            switch feedline_curl_failure(rawValue: UInt32(result)) {
            case FEEDLINE_CURL_CANCELLED: throw CancellationError()
            case FEEDLINE_CURL_TIMED_OUT: throw HTTPTransportError(.timedOut, detail: detail)
            case FEEDLINE_CURL_CANNOT_CONNECT: throw HTTPTransportError(.cannotConnect, detail: detail)
            case FEEDLINE_CURL_CANNOT_RESOLVE: throw HTTPTransportError(.cannotResolveHost, detail: detail)
            case FEEDLINE_CURL_CONNECTION_LOST: throw HTTPTransportError(.connectionLost, detail: detail)
            case FEEDLINE_CURL_TLS: throw HTTPTransportError(.tls, detail: detail)
            case FEEDLINE_CURL_TOO_LARGE: throw HTTPTransportError(.tooLarge(maxBodyBytes))
            case FEEDLINE_CURL_OUT_OF_MEMORY: throw HTTPTransportError(.outOfMemory, detail: detail)
            default: throw HTTPTransportError(.other, detail: detail)
            }
        }
        returnHandle(handle)
        var body = Data()
        if let bytes = response.pointee.body, response.pointee.body_length > 0 {
            let pool = buffers, capacity = response.pointee.body_capacity
            body = Data(bytesNoCopy: bytes, count: response.pointee.body_length,
                        deallocator: .custom { pointer, _ in pool.giveBack(pointer, capacity: capacity) })
            response.pointee.body = nil
        }
        var fields: [String: String] = [:]
        if let raw = response.pointee.headers, response.pointee.headers_length > 0 {
            let text = String(decoding: UnsafeRawBufferPointer(start: raw, count: response.pointee.headers_length), as: UTF8.self)
            for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = Self.trimmed(line[..<colon]).lowercased()
                let value = Self.trimmed(line[line.index(after: colon)...])
                fields[name] = fields[name].map { "\($0), \(value)" } ?? value
            }
        }
        let location = response.pointee.redirect_url.flatMap { URL(string: String(cString: $0)) }
        return HTTPResponse(status: Int(response.pointee.status), contentType: fields["content-type"], body: body, headers: fields,
                            redirectLocation: location)
    }

    /// Without spaces and tabs around (Foundation's character-set trimming builds a bitmap per call).
    private static func trimmed(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return String(text[first...last])
    }

    private func takeHandle() -> UnsafeMutableRawPointer? {
        lock.lock()
        let kept = idle.popLast()
        lock.unlock()
        return kept ?? feedline_curl_handle_new()
    }

    private func returnHandle(_ handle: UnsafeMutableRawPointer) {
        lock.lock()
        let keep = idle.count < keptHandles
        if keep { idle.append(handle) }
        lock.unlock()
        if !keep { feedline_curl_handle_free(handle) }
    }

    /// One request's response buffers, shared by the transfer's thread and the cancellation
    /// handler (which may run before, during or after the transfer).
    private final class Transfer: @unchecked Sendable {
        let response: UnsafeMutablePointer<feedline_curl_response>

        init(maxBody: Int, buffer: (pointer: UnsafeMutableRawPointer, capacity: Int)?) {
            response = .allocate(capacity: 1)
            response.initialize(to: feedline_curl_response())
            response.pointee.max_body = maxBody
            if let buffer {
                response.pointee.body = buffer.pointer.assumingMemoryBound(to: UInt8.self)
                response.pointee.body_capacity = buffer.capacity
            }
        }

        func cancel() { feedline_curl_cancel(response) }

        deinit {
            feedline_curl_response_free(response)
            response.deallocate()
        }
    }
}

/// At most four malloc'd buffers of at most 16 MiB, kept for reuse.
private final class BufferPool: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [(pointer: UnsafeMutableRawPointer, capacity: Int)] = []

    func take() -> (pointer: UnsafeMutableRawPointer, capacity: Int)? {
        lock.withLock { kept.popLast() }
    }

    func giveBack(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        let keep = capacity <= 16 << 20 && lock.withLock {
            guard kept.count < 4 else { return false }
            kept.append((pointer, capacity))
            return true
        }
        if !keep { free(pointer) }
    }

    deinit { for buffer in kept { free(buffer.pointer) } }
}
