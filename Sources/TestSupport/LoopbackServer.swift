import Foundation

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: real sockets, so the real HTTP transport is
/// exercised. Each request is answered by `handler`; the server records the requests it saw.
/// It is `FaultServer` with the simple replies most tests need; the sockets live there.
public final class LoopbackServer: @unchecked Sendable {
    /// What to send back.
    public enum Reply: Sendable {
        /// A normal response.
        case respond(status: Int, contentType: String, body: Data)
        /// Close the connection without answering (a reset from the client's point of view).
        case dropConnection
        /// Send the headers and only the first `bytes` of the body, then close.
        case truncated(status: Int, contentType: String, body: Data, bytes: Int)

        var fault: FaultServer.Reply {
            switch self {
            case .respond(let status, let contentType, let body): .respond(status: status, contentType: contentType, body: body)
            case .dropConnection: .reset
            case .truncated(let status, let contentType, let body, let bytes):
                .truncated(status: status, contentType: contentType, body: body, bytes: bytes)
            }
        }
    }

    /// A request as the server saw it.
    public struct Request: Sendable {
        /// Path and query, percent-encoded as sent.
        public var target: String
        public var headers: [String: String]

        /// The decoded query parameters.
        public var query: [String: String] {
            guard let q = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
            var out: [String: String] = [:]
            for pair in q.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                out[kv[0]] = kv.count > 1 ? kv[1] : ""
            }
            return out
        }

        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    private let server: FaultServer

    public init(handler: @escaping @Sendable (Request) -> Reply) throws {
        server = try FaultServer { seen in handler(seen.request).fault }
    }

    /// Requests seen so far.
    public var requests: [Request] { server.requests.map(\.request) }

    /// The port listened on.
    public var port: UInt16 { server.port }

    /// `http://127.0.0.1:PORT/`
    public var baseURL: URL { server.baseURL }

    /// Stops accepting connections.
    public func stop() { server.stop() }
}
