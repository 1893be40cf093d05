import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 server for tests, and for fault injection (real sockets on
/// 127.0.0.1, one thread per connection, requests recorded), with more ways to misbehave —
/// a slow drip, a stall, a close-delimited (length-less) truncated body, a reset — and a
/// per-request handler that sees how many times the same target was asked for before.
public final class FaultServer: @unchecked Sendable {
    /// What to send back.
    public enum Reply: Sendable {
        /// A normal response with a `Content-Length`.
        case respond(status: Int, contentType: String, body: Data)
        /// A normal response with extra headers (`Retry-After`, `x-ratelimit-remaining`).
        case respondWithHeaders(status: Int, contentType: String, body: Data, headers: [String: String])
        /// Close with a TCP reset before answering.
        case reset
        /// Announce `body.count` bytes, send only the first `bytes`, then close.
        case truncated(status: Int, contentType: String, body: Data, bytes: Int)
        /// No `Content-Length`: send the first `bytes` of `body` and close; the client cannot tell
        /// the body was cut (only the document's own structure can).
        case closeDelimited(status: Int, contentType: String, body: Data, bytes: Int)
        /// Send the headers at once, then the body `chunk` bytes every `interval` seconds.
        case drip(status: Int, contentType: String, body: Data, chunk: Int, interval: Double)
        /// Read the request and send nothing for `seconds`, then close.
        case stall(seconds: Double)
    }

    /// A request as seen, with the number of earlier requests for the same target.
    public struct Seen: Sendable {
        public var request: LoopbackServer.Request
        /// 1 for the first request of this target (path and query), 2 for the second, …
        public var attempt: Int
    }

    public let port: UInt16
    private let socketFD: Int32
    private let handler: @Sendable (Seen) -> Reply
    private let lock = NSLock()
    private var seen: [Seen] = []
    private var counts: [String: Int] = [:]
    private var stopped = false

    /// Requests seen so far, in order.
    public var requests: [Seen] { lock.withLock { seen } }

    /// `http://127.0.0.1:PORT/`
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    public init(handler: @escaping @Sendable (Seen) -> Reply) throws {
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
        port = UInt16(bigEndian: actual.sin_port)
        socketFD = fd
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting; drips and stalls in progress end at their next tick.
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

    private var isStopped: Bool { lock.withLock { stopped } }

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
        while !Self.hasHeaderEnd(buffer) {
            let n = recv(client, &chunk, chunk.count, 0)
            if n <= 0 { return }
            buffer += chunk[0..<n]
            if buffer.count > 1 << 20 { return }
        }
        let lines = String(decoding: buffer, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where line.contains(":") {
            let kv = line.split(separator: ":", maxSplits: 1)
            headers[kv[0].trimmingCharacters(in: .whitespaces).lowercased()] = kv[1].trimmingCharacters(in: .whitespaces)
        }
        let request = LoopbackServer.Request(target: String(parts[1]), headers: headers)
        let entry = lock.withLock { () -> Seen in
            counts[request.target, default: 0] += 1
            let entry = Seen(request: request, attempt: counts[request.target]!)
            seen.append(entry)
            return entry
        }
        send(handler(entry), to: client)
    }

    private func send(_ reply: Reply, to client: Int32) {
        switch reply {
        case .respond(let status, let contentType, let body):
            _ = write(client, head(status, contentType, length: body.count) + body)
        case .respondWithHeaders(let status, let contentType, let body, let headers):
            _ = write(client, head(status, contentType, length: body.count, extra: headers) + body)
        case .reset:
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        case .truncated(let status, let contentType, let body, let bytes):
            _ = write(client, head(status, contentType, length: body.count) + body.prefix(bytes))
        case .closeDelimited(let status, let contentType, let body, let bytes):
            _ = write(client, head(status, contentType, length: nil) + body.prefix(bytes))
        case .drip(let status, let contentType, let body, let size, let interval):
            guard write(client, head(status, contentType, length: body.count)) else { return }
            var offset = 0
            while offset < body.count, !isStopped {
                let end = min(body.count, offset + max(1, size))
                guard write(client, body.subdata(in: offset..<end)) else { return }
                offset = end
                Thread.sleep(forTimeInterval: interval)
            }
        case .stall(let seconds):
            let until = Date().addingTimeInterval(seconds)
            while Date() < until, !isStopped { Thread.sleep(forTimeInterval: 0.05) }
        }
    }

    private func head(_ status: Int, _ contentType: String, length: Int?, extra: [String: String] = [:]) -> Data {
        var text = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Type: \(contentType)\r\n"
        if let length { text += "Content-Length: \(length)\r\n" }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Data(text.utf8)
    }

    /// Writes all of `data`; false when the peer went away.
    private func write(_ client: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(client, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    private static func hasHeaderEnd(_ b: [UInt8]) -> Bool {
        guard b.count >= 4 else { return false }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 { return true }
        return false
    }
}
