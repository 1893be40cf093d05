import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: real sockets, so the real URLSession path is
/// exercised. Each request is answered by `handler`; the server records the request targets it
/// saw. Bounded: it serves until `stop()` (or deinit) and only on loopback.
public final class LoopbackServer: @unchecked Sendable {
    /// What to send back.
    public enum Reply: Sendable {
        /// A normal response.
        case respond(status: Int, contentType: String, body: Data)
        /// Close the connection without answering (a reset from the client's point of view).
        case dropConnection
        /// Send the headers and only the first `bytes` of the body, then close.
        case truncated(status: Int, contentType: String, body: Data, bytes: Int)
        /// Wait before answering.
        case delayed(seconds: Double, then: ReplyBox)
    }

    /// Boxes a reply for the recursive `delayed` case.
    public final class ReplyBox: Sendable {
        public let reply: Reply
        public init(_ reply: Reply) { self.reply = reply }
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

    public let port: UInt16
    private let socketFD: Int32
    private let handler: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var _requests: [Request] = []
    private var stopped = false

    /// Requests seen so far.
    public var requests: [Request] { lock.withLock { _requests } }

    /// `http://127.0.0.1:PORT/`
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    public init(handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.socketFD = fd
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting connections.
    public func stop() {
        let already = lock.withLock { () -> Bool in
            defer { stopped = true }
            return stopped
        }
        if !already {
            shutdown(socketFD, Int32(SHUT_RDWR))
            close(socketFD)
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(socketFD, nil, nil)
            if client < 0 { return }
            let thread = Thread { [weak self] in
                self?.serve(client)
                close(client)
            }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !buffer.containsHeaderEnd {
            let n = recv(client, &chunk, chunk.count, 0)
            if n <= 0 { return }
            buffer += chunk[0..<n]
            if buffer.count > 1 << 20 { return }
        }
        let head = String(decoding: buffer, as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where line.contains(":") {
            let kv = line.split(separator: ":", maxSplits: 1)
            headers[kv[0].trimmingCharacters(in: .whitespaces).lowercased()] = kv[1].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(target: String(parts[1]), headers: headers)
        lock.withLock { _requests.append(request) }
        send(handler(request), to: client)
    }

    private func send(_ reply: Reply, to client: Int32) {
        switch reply {
        case .respond(let status, let contentType, let body):
            write(client, header(status, contentType, body.count) + body)
        case .truncated(let status, let contentType, let body, let bytes):
            write(client, header(status, contentType, body.count) + body.prefix(bytes))
        case .dropConnection:
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        case .delayed(let seconds, let then):
            Thread.sleep(forTimeInterval: seconds)
            send(then.reply, to: client)
        }
    }

    private func header(_ status: Int, _ contentType: String, _ length: Int) -> Data {
        Data("HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Type: \(contentType)\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
    }

    private func write(_ client: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(client, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                offset += n
            }
        }
    }
}

private extension Array where Element == UInt8 {
    var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return true }
        return false
    }
}
