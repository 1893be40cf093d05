import FeedCore
import Foundation
import Testing
import TestSupport

/// The live HTTP transport (libcurl) against a loopback server: what it sends, what it hands
/// back, and how each way of failing is worded. The fault matrix runs whole pipelines over it.
@Suite struct CurlTransportTests {
    /// Bytes that are not text, large enough to arrive in many reads.
    static let bigBody: Data = {
        var generator = SystemRandomNumberGenerator()
        var state = UInt64.random(in: 1...UInt64.max, using: &generator)
        return Data((0..<3_000_000).map { _ -> UInt8 in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        })
    }()

    @Test func sendsHeadersAndReturnsStatusHeadersAndBodyUnchanged() async throws {
        let server = try FaultServer { _ in
            .respondWithHeaders(status: 203, contentType: "application/octet-stream", body: Self.bigBody,
                                headers: ["X-RateLimit-Remaining": "7", "Retry-After": "12"])
        }
        defer { server.stop() }
        let response = try await CurlTransport(timeout: 5).get(server.baseURL.appendingPathComponent("page"),
                                                               headers: ["X-API-Key": "k-123", "Accept": "application/xml"])
        #expect(response.status == 203)
        #expect(response.contentType == "application/octet-stream")
        #expect(response.body == Self.bigBody)
        #expect(response.headers["x-ratelimit-remaining"] == "7")
        #expect(response.retryAfter == 12)
        let seen = try #require(server.requests.first)
        #expect(seen.request.path == "/page")
        #expect(seen.request.headers["x-api-key"] == "k-123")
        #expect(seen.request.headers["accept"] == "application/xml")
    }

    @Test func followsRedirectsAndKeepsOnlyTheFinalResponsesHeaders() async throws {
        let server = try FaultServer { seen in
            seen.request.path == "/old"
                ? .respondWithHeaders(status: 302, contentType: "text/plain", body: Data("moved".utf8), headers: ["Location": "/new", "X-Hop": "1"])
                : .respond(status: 200, contentType: "text/xml", body: Data("<ok/>".utf8))
        }
        defer { server.stop() }
        let response = try await CurlTransport(timeout: 5).get(server.baseURL.appendingPathComponent("old"), headers: [:])
        #expect(response.status == 200)
        #expect(response.body == Data("<ok/>".utf8))
        #expect(response.headers["x-hop"] == nil)
        #expect(server.requests.map(\.request.path) == ["/old", "/new"])
    }

    @Test func decodesAGzipBody() async throws {
        let xml = "<response><header><resultCode>00</resultCode></header></response>"
        let gzip = try #require(Data(base64Encoded: "H4sIAAAAAAACA7MpSi0uyM8rTrWzyUhNTEktsrMBipTmlDjnp6TaGRjY6CNxbfRhavTh2gDlhA7lQQAAAA=="))
        let server = try FaultServer { _ in
            .respondWithHeaders(status: 200, contentType: "text/xml", body: gzip, headers: ["Content-Encoding": "gzip"])
        }
        defer { server.stop() }
        let response = try await CurlTransport(timeout: 5).get(server.baseURL, headers: [:])
        #expect(String(decoding: response.body, as: UTF8.self) == xml)
        #expect(server.requests.first?.request.headers["accept-encoding"]?.contains("gzip") == true)
    }

    @Test func aBodyOverTheLimitFailsInsteadOfFillingMemory() async throws {
        let server = try FaultServer { _ in .respond(status: 200, contentType: "text/xml", body: Self.bigBody) }
        defer { server.stop() }
        let error = await #expect(throws: HTTPTransportError.self) {
            try await CurlTransport(timeout: 5, maxBodyBytes: 1 << 20).get(server.baseURL, headers: [:])
        }
        #expect(error?.kind == .tooLarge(1 << 20))
        #expect(error?.description == "the response is larger than 1 MiB")
        // The same transport still works for a body under the limit.
        let small = try FaultServer { _ in .respond(status: 200, contentType: "text/xml", body: Data("<a/>".utf8)) }
        defer { small.stop() }
        #expect(try await CurlTransport(timeout: 5, maxBodyBytes: 1 << 20).get(small.baseURL, headers: [:]).body == Data("<a/>".utf8))
    }

    @Test func eachFailureIsNamed() async throws {
        let server = try FaultServer { seen in
            switch seen.request.path {
            case "/stall": .stall(seconds: 10)
            case "/reset": .reset
            default: .truncated(status: 200, contentType: "text/xml", body: Data(repeating: 0x41, count: 1000), bytes: 10)
            }
        }
        defer { server.stop() }
        let transport = CurlTransport(timeout: 1)
        #expect(await failure(transport, server.baseURL.appendingPathComponent("stall"))?.kind == .timedOut)
        #expect(await failure(transport, server.baseURL.appendingPathComponent("reset"))?.kind == .connectionLost)
        #expect(await failure(transport, server.baseURL.appendingPathComponent("truncated"))?.kind == .connectionLost)

        // A port nobody listens on: bind one, close it, connect to it.
        let closed = try FaultServer { _ in .reset }
        let url = closed.baseURL
        closed.stop()
        #expect(await failure(transport, url)?.kind == .cannotConnect)
    }

    private func failure(_ transport: CurlTransport, _ url: URL) async -> HTTPTransportError? {
        await #expect(throws: HTTPTransportError.self) { try await transport.get(url, headers: [:]) }
    }

    @Test func aHeaderWithALineBreakIsRefusedBeforeAnythingIsSent() async throws {
        let server = try FaultServer { _ in .respond(status: 200, contentType: "text/xml", body: Data("<a/>".utf8)) }
        defer { server.stop() }
        let error = await #expect(throws: HTTPTransportError.self) {
            try await CurlTransport(timeout: 5).get(server.baseURL, headers: ["X-API-Key": "abc\r\nX-Injected: 1"])
        }
        #expect(error?.kind == .invalidHeader)
        #expect(server.requests.isEmpty)
    }

    @Test func cancellingTheTaskStopsAStalledTransfer() async throws {
        // The server would stall for a minute and the transport give up after 30 s of silence
        // (a `timedOut` error): only a transfer that honours the cancellation ends with
        // CancellationError. No wall-clock bound here: a busy test machine may be slow to resume.
        let server = try FaultServer { _ in .stall(seconds: 60) }
        defer { server.stop() }
        let task = Task { try await CurlTransport(timeout: 30).get(server.baseURL, headers: [:]) }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
