import App
import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A key goes only to the host the pipeline names: a keyed request refuses a redirect to any
/// other host (header or query key alike), any request refuses a non-HTTP(S) scheme, a redirect
/// loop ends the request, and a body announced larger than the cap is refused from its
/// `Content-Length` — each terminal, so the request is made once, never retried.
@Suite(.serialized) struct RedirectPolicyTests {
    typealias RawServer = RedirectTestServer

    static let key = "RedirKEY+secret/42="
    static let openAQ = "source: openaq\noperation: locations\nparameters:\n  iso: KR\nformat: json\n"
    static let airKorea = "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\nformat: xml\npage_size: 10\n"

    static func fixture(_ path: String) throws -> Data {
        try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent(path))
    }

    /// Runs `pipeline` live against `base`; the exit status and everything printed or logged.
    func run(_ name: String, _ pipeline: String, variable: String, base: URL,
             extra: [String: String] = [:]) async throws -> (status: App.ExitStatus, printed: String) {
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables[variable] = Self.key
        env.variables.merge(extra) { _, b in b }
        env.airKoreaBase = base
        env.careerBase = base
        let pipelines = try env.writePipeline(name, pipeline)
        let status = await env.feedline.run(names: [name], source: .live, paths: env.paths(pipelines: pipelines), json: false)
        return (status, env.out.text + env.err.text + env.logs.text)
    }

    /// A server on 127.0.0.2 that counts what reaches it; skipped when the address cannot be bound.
    static func elsewhere() throws -> RawServer {
        try RawServer(host: "127.0.0.2") { _ in RawServer.response(200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8)) }
    }

    @Test("a header key (OpenAQ X-API-Key) is never sent to the host a redirect names: refused, terminal, asked once")
    func headerKeyDoesNotFollowACrossHostRedirect() async throws {
        let other = try Self.elsewhere()
        defer { other.stop() }
        let origin = try RawServer(host: "127.0.0.1") { seen in
            RawServer.response(302, headers: ["Location": "http://127.0.0.2:\(other.port)\(seen.target)"])
        }
        defer { origin.stop() }
        let (status, printed) = try await run("openaq", Self.openAQ, variable: "OPENAQ_API_KEY", base: origin.baseURL)
        #expect(status != .success)
        #expect(other.requests.isEmpty, "the other host was asked: \(other.requests.map(\.headers))")
        #expect(origin.requests.count == 1, "a refused redirect is terminal, not retried: \(origin.requests.count) requests")
        #expect(printed.contains("redirected to another host (127.0.0.2)"), "\(printed.prefix(1200))")
        #expect(!printed.contains("RedirKEY"))
    }

    @Test("a query key (AirKorea serviceKey) is never sent to the host a redirect names, even when the Location copies the query")
    func queryKeyDoesNotFollowACrossHostRedirect() async throws {
        let other = try Self.elsewhere()
        defer { other.stop() }
        let origin = try RawServer(host: "127.0.0.1") { seen in
            RawServer.response(301, headers: ["Location": "http://127.0.0.2:\(other.port)\(seen.target)"])
        }
        defer { origin.stop() }
        let (status, printed) = try await run("airkorea", Self.airKorea, variable: "AIRKOREA_SERVICE_KEY", base: origin.baseURL)
        #expect(status != .success)
        #expect(other.requests.isEmpty, "the other host was asked: \(other.requests.map(\.target))")
        #expect(origin.requests.count == 1)
        #expect(!printed.contains("RedirKEY"), "\(printed.prefix(800))")
    }

    @Test("a redirect on the same host is still followed, with the key")
    func sameHostRedirectIsFollowed() async throws {
        let body = try Self.fixture("openaq/locations-kr.json")
        let origin = try RawServer(host: "127.0.0.1") { seen in
            seen.target.hasPrefix("/moved")
                ? RawServer.response(200, headers: ["Content-Type": "application/json"], body: body)
                : RawServer.response(307, headers: ["Location": "/moved\(seen.target)"])
        }
        defer { origin.stop() }
        let (status, printed) = try await run("openaq", Self.openAQ, variable: "OPENAQ_API_KEY", base: origin.baseURL)
        #expect(status == .success, "\(printed.prefix(800))")
        let keys = origin.requests.map { $0.headers["x-api-key"] }
        #expect(keys.count == 2 && keys.allSatisfy { $0 == Self.key }, "\(keys)")
    }

    @Test("a request without a key may follow a redirect to another host (http and https only)")
    func unkeyedRequestsFollowAnywhere() async throws {
        let other = try Self.elsewhere()
        defer { other.stop() }
        let origin = try RawServer(host: "127.0.0.1") { _ in
            RawServer.response(302, headers: ["Location": "http://127.0.0.2:\(other.port)/there"])
        }
        defer { origin.stop() }
        let response = try await CurlTransport(timeout: 5).get(origin.baseURL.appendingPathComponent("here"), headers: [:])
        #expect(response.status == 200 && other.requests.map(\.target) == ["/there"])
    }

    @Test("a redirect loop ends the request after 10 hops, terminal (not retried)")
    func redirectLoopIsTerminal() async throws {
        let origin = try RawServer(host: "127.0.0.1") { seen in RawServer.response(301, headers: ["Location": seen.target]) }
        defer { origin.stop() }
        let (status, printed) = try await run("openaq", Self.openAQ, variable: "OPENAQ_API_KEY", base: origin.baseURL)
        #expect(status != .success)
        #expect(printed.contains("more than 10 redirects"), "\(printed.prefix(800))")
        #expect(origin.requests.count == 11, "one attempt of 1 + 10 hops, not retried: \(origin.requests.count)")
    }

    @Test("a redirect to file:// is refused, terminal", arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"])
    func redirectToAnotherSchemeIsRefused(_ location: String) async throws {
        let origin = try RawServer(host: "127.0.0.1") { _ in RawServer.response(302, headers: ["Location": location]) }
        defer { origin.stop() }
        let (status, printed) = try await run("openaq", Self.openAQ, variable: "OPENAQ_API_KEY", base: origin.baseURL)
        #expect(status != .success)
        #expect(printed.contains("only http and https are followed"), "\(printed.prefix(800))")
        #expect(origin.requests.count == 1, "\(origin.requests.count) requests")
    }

    @Test("a base URL that is not http or https is refused before anything is sent, terminal")
    func baseURLWithAnotherSchemeIsRefused() async throws {
        let (status, printed) = try await run("openaq", Self.openAQ, variable: "OPENAQ_API_KEY", base: URL(string: "file:///etc/")!)
        #expect(status != .success)
        #expect(printed.contains("only http and https URLs are fetched"), "\(printed.prefix(800))")
        #expect(!printed.contains("transient"), "\(printed.prefix(800))")
    }

    @Test("a Content-Length over the body cap is refused from the header: terminal, asked once")
    func overCapContentLengthIsRefusedFromTheHeader() async throws {
        let origin = try RawServer(host: "127.0.0.1") { _ in
            RawServer.response(200, headers: ["Content-Type": "application/json"], body: Data("{".utf8), contentLength: 300 << 20)
        }
        defer { origin.stop() }
        let (status, printed) = try await run("openaq", Self.openAQ, variable: "OPENAQ_API_KEY", base: origin.baseURL)
        #expect(status != .success)
        #expect(printed.contains("the response is larger than 256 MiB"), "\(printed.prefix(800))")
        #expect(origin.requests.count == 1, "terminal, not retried: \(origin.requests.count) requests")
    }

    @Test func policyDecisions() throws {
        let keyed = RedirectPolicy.request(to: URL(string: "https://API.example.org/v3")!, carriesCredential: true)
        let from = URL(string: "https://api.example.org/v3")!
        #expect(throws: Never.self) { try keyed.check(hop: 1, from: from, to: URL(string: "https://api.example.org./v3/x")!) }
        #expect(throws: HTTPTransportError.self) { try keyed.check(hop: 1, from: from, to: URL(string: "https://evil.example.org/v3")!) }
        #expect(throws: HTTPTransportError.self) { try keyed.check(hop: 1, from: from, to: URL(string: "http://api.example.org/v3")!) }
        #expect(throws: HTTPTransportError.self) { try keyed.check(hop: 11, from: from, to: from) }
        #expect(throws: HTTPTransportError.self) { try RedirectPolicy.open.check(hop: 1, from: from, to: URL(string: "file:///etc/passwd")!) }
        #expect(throws: Never.self) { try RedirectPolicy.open.check(hop: 1, from: from, to: URL(string: "http://elsewhere.example/")!) }
    }
}

/// A bare HTTP/1.1 server on any loopback address (Linux routes all of 127/8 to `lo`): one
/// request per connection, answered with the raw bytes `handler` gives.
final class RedirectTestServer: @unchecked Sendable {
    struct Seen: Sendable { var target: String; var headers: [String: String] }
    private let fd: Int32
    let port: UInt16
    let host: String
    private let lock = NSLock()
    private var seen: [Seen] = []
    var requests: [Seen] { lock.withLock { seen } }

    init(host: String, handler: @escaping @Sendable (Seen) -> Data) throws {
        self.host = host
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = UInt16(bigEndian: addr.sin_port)
        let listener = fd
        Thread.detachNewThread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 16384)
                var received = Data()
                while received.range(of: Data("\r\n\r\n".utf8)) == nil {
                    let count = read(client, &buffer, buffer.count)
                    guard count > 0 else { break }
                    received.append(contentsOf: buffer[0..<count])
                }
                let lines = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let parts = lines.first?.split(separator: " ") ?? []
                let request = Seen(target: parts.count > 1 ? String(parts[1]) : "", headers: headers)
                self?.lock.withLock { self?.seen.append(request) }
                let reply = handler(request)
                reply.withUnsafeBytes { _ = write(client, $0.baseAddress, $0.count) }
                shutdown(client, Int32(SHUT_RDWR))
                close(client)
            }
        }
    }

    var baseURL: URL { URL(string: "http://\(host):\(port)/")! }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }

    static func response(_ status: Int, headers: [String: String] = [:], body: Data = Data(), contentLength: Int? = nil) -> Data {
        var head = "HTTP/1.1 \(status) X\r\nConnection: close\r\nContent-Length: \(contentLength ?? body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return Data((head + "\r\n").utf8) + body
    }
}
