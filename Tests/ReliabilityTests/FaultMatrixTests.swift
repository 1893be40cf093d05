import AirKorea
import App
import Foundation
import Testing
import TestSupport

/// The fault matrix: a live run over real HTTP (127.0.0.1) into a real database — a SQLite
/// file, and in a build with the PostgreSQL trait a database on the test server too — with one
/// fault on page 2 of 3. For each fault the run either completes correctly or fails with one
/// clear line; a failed run leaves every table but the ledger (`run`, `diagnostic`, and the
/// quota counter `api_call`, whose calls really happened) exactly as it was; a re-run once the
/// fault clears gives the same content as a run that never saw it; and the sentinel key
/// appears nowhere — output, logs, archive, database.
///
/// The cases run one at a time: each starts its own server and runs feedline two or more times,
/// and 54 of them at once (two stores) on a 2-core host made every run wait for the others.
@Suite(.serialized) struct FaultMatrixTests {
    /// What a fault should lead to.
    enum Outcome: Sendable {
        /// The run succeeds and loads exactly what a clean run loads.
        case completesClean
        /// The run succeeds with what the server really sent (these stations), no duplicates.
        case completesWith(stations: [String])
        /// The run fails with this exit status after this many requests for page 2, saying all of `says`.
        case fails(App.ExitStatus, attempts: Int, says: [String])
    }

    struct Fault: Sendable, CustomTestStringConvertible {
        var name: String
        /// The reply to page 2's `attempt`-th request (1-based) while the fault is on; nil = the clean page.
        var reply: @Sendable (_ attempt: Int) -> FaultServer.Reply?
        var outcome: Outcome
        /// The transport's idle timeout during the faulty run (seconds); the whole transfer may take 4× this.
        var timeout: TimeInterval = 10
        var variables: [String: String] = [:]
        /// The re-run happens the next KST day (after a daily-quota error).
        var rerunNextDay = false
        /// Provenance (the `payload` index, `payload_sha256`) legitimately differs from a clean run
        /// because the server sent different bytes; values must still match.
        var provenanceDiffers = false
        var testDescription: String { name }
    }

    static func xml(_ status: Int, _ body: Data, type: String = "text/xml") -> FaultServer.Reply {
        .respond(status: status, contentType: type, body: body)
    }

    static let page2 = Pages.clean(2)
    static let gateway22 = AirKoreaPages.gatewayError(code: "22", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR")
    static let gateway23 = AirKoreaPages.gatewayError(code: "23", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR")
    static let gateway30 = AirKoreaPages.gatewayError(code: "30", name: "SERVICE_KEY_IS_NOT_REGISTERED_ERROR")

    static let faults: [Fault] = [
        // Transient and persistent: retried (3 attempts in these tests), then exit 75.
        Fault(name: "HTTP 500", reply: { _ in xml(500, Data("oops".utf8), type: "text/plain") },
              outcome: .fails(.temporaryFailure, attempts: 3, says: ["HTTP 500", "Gave up after 3 attempts"])),
        Fault(name: "HTTP 502", reply: { _ in xml(502, Data("<html>bad gateway</html>".utf8), type: "text/html") },
              outcome: .fails(.temporaryFailure, attempts: 3, says: ["HTTP 502"])),
        Fault(name: "HTTP 503", reply: { _ in xml(503, Data("busy".utf8), type: "text/plain") },
              outcome: .fails(.temporaryFailure, attempts: 3, says: ["HTTP 503"])),
        // A rate limit is waited out once (the window: 10 ms here), then the run stops: never a loop.
        Fault(name: "HTTP 429", reply: { _ in xml(429, Data("slow down".utf8), type: "text/plain") },
              outcome: .fails(.temporaryFailure, attempts: 2, says: ["HTTP 429", "too many requests", "rate limit answered again"]),
              variables: ["FEEDLINE_RATE_LIMIT_WAIT_MS": "10"]),
        Fault(name: "connection reset", reply: { _ in .reset },
              outcome: .fails(.temporaryFailure, attempts: 3, says: ["request failed"])),
        Fault(name: "timeout", reply: { _ in .stall(seconds: 8) },
              outcome: .fails(.temporaryFailure, attempts: 2, says: ["timed out", "Gave up after 2 attempts"]), timeout: 2,
              variables: ["FEEDLINE_RETRY_ATTEMPTS": "2"]),
        // A drip never trips the transport's idle timeout (and its whole-transfer limit is 4× that):
        // the per-fetch deadline (FEEDLINE_FETCH_DEADLINE_MS) ends it.
        Fault(name: "slow drip", reply: { _ in .drip(status: 200, contentType: "text/xml", body: page2, chunk: 8, interval: 0.1) },
              outcome: .fails(.temporaryFailure, attempts: 2, says: ["timed out", "sent too slowly"]),
              variables: ["FEEDLINE_RETRY_ATTEMPTS": "2", "FEEDLINE_FETCH_DEADLINE_MS": "2000"]),
        Fault(name: "slow drip once", reply: { $0 == 1 ? .drip(status: 200, contentType: "text/xml", body: page2, chunk: 8, interval: 0.1) : nil },
              outcome: .completesClean, variables: ["FEEDLINE_FETCH_DEADLINE_MS": "2000"]),
        Fault(name: "truncated body (Content-Length)", reply: { _ in .truncated(status: 200, contentType: "text/xml", body: page2, bytes: page2.count / 2) },
              outcome: .fails(.temporaryFailure, attempts: 3, says: ["request failed"])),
        Fault(name: "empty body", reply: { _ in xml(200, Data()) },
              outcome: .fails(.temporaryFailure, attempts: 3, says: ["empty body"])),
        Fault(name: "API 23 per-second rate", reply: { _ in xml(200, gateway23) },
              outcome: .fails(.temporaryFailure, attempts: 3, says: ["23", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR"])),
        // The daily quota: transient, but not retried within the run.
        Fault(name: "API 22 daily quota", reply: { _ in xml(200, gateway22) },
              outcome: .fails(.deferred, attempts: 1, says: ["22", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR", "midnight KST"]),
              rerunNextDay: true),
        // Terminal: one attempt, exit 1.
        Fault(name: "API 30 key not registered", reply: { _ in xml(200, gateway30) },
              outcome: .fails(.failure, attempts: 1, says: ["30", "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"])),
        Fault(name: "truncated body (no Content-Length)", reply: { _ in .closeDelimited(status: 200, contentType: "text/xml", body: page2, bytes: page2.count / 2) },
              outcome: .fails(.failure, attempts: 1, says: ["truncated"])),
        Fault(name: "malformed XML", reply: { _ in xml(200, Data("<response><header><resultCode>00</resultCode></header><body><items><item><stationName>X</stationName></itm></items></body></response>".utf8)) },
              outcome: .fails(.failure, attempts: 1, says: ["not well-formed"])),
        Fault(name: "malformed JSON", reply: { _ in xml(200, Data("{\"response\":{\"body\":{\"items\":[{\"stationName\":\"X\",".utf8), type: "application/json") },
              outcome: .fails(.failure, attempts: 1, says: ["JSON is not well-formed"])),
        Fault(name: "HTML error page with 200", reply: { _ in xml(200, Data("<html><body>Service temporarily unavailable</body></html>".utf8), type: "text/html") },
              outcome: .fails(.failure, attempts: 1, says: ["neither an AirKorea"])),
        // Transient once, then fine: the retry makes the run complete exactly like a clean one.
        Fault(name: "HTTP 503 once", reply: { $0 == 1 ? xml(503, Data("busy".utf8), type: "text/plain") : nil }, outcome: .completesClean),
        Fault(name: "reset once", reply: { $0 == 1 ? .reset : nil }, outcome: .completesClean),
        Fault(name: "timeout once", reply: { $0 == 1 ? .stall(seconds: 6) : nil }, outcome: .completesClean, timeout: 2),
        Fault(name: "truncated once", reply: { $0 == 1 ? .truncated(status: 200, contentType: "text/xml", body: page2, bytes: 100) : nil },
              outcome: .completesClean),
        Fault(name: "API 23 once", reply: { $0 == 1 ? xml(200, gateway23) : nil }, outcome: .completesClean),
        // Odd but readable: the body decides, whatever the header says.
        Fault(name: "wrong content type, valid XML", reply: { _ in xml(200, page2, type: "text/html; charset=EUC-KR") },
              outcome: .completesClean, provenanceDiffers: true),
        Fault(name: "JSON answer to an XML request", reply: { _ in xml(200, Pages.clean(2, format: "json"), type: "application/json") },
              outcome: .completesClean, provenanceDiffers: true),
        // Paging anomalies: the run loads what the server sent, each station-hour once.
        Fault(name: "duplicate page", reply: { _ in xml(200, Pages.clean(1)) },
              outcome: .completesWith(stations: ["S0", "S1", "S2", "S6"])),
        Fault(name: "overlapping page", reply: { _ in xml(200, Pages.body(AirKoreaPages.items(first: 2, count: 3), page: 2)) },
              outcome: .completesWith(stations: ["S0", "S1", "S2", "S3", "S4", "S6"]), provenanceDiffers: true),
        Fault(name: "empty page mid-sequence", reply: { _ in xml(200, Pages.body([], page: 2)) },
              outcome: .completesWith(stations: ["S0", "S1", "S2"]), provenanceDiffers: true),
    ]

    /// Which pages the server sends: an earlier hour (to have data before the fault), the faulty
    /// sequence, or the clean sequence after the fault clears.
    final class Phase: @unchecked Sendable {
        enum Value { case baseline, fault, cleared }
        private let lock = NSLock()
        private var value = Value.baseline
        private var faultAttempts = 0
        var current: Value { lock.withLock { value } }
        func set(_ v: Value) { lock.withLock { value = v } }
        /// Counts a page-2 request while the fault is on; returns its attempt number.
        func nextFaultAttempt() -> Int { lock.withLock { faultAttempts += 1; return faultAttempts } }
        var page2Attempts: Int { lock.withLock { faultAttempts } }
    }

    static func server(_ fault: Fault?, phase: Phase) throws -> FaultServer {
        try FaultServer { seen in
            let page = Pages.page(of: seen.request)
            switch phase.current {
            case .baseline:
                return xml(200, Pages.clean(page, dataTime: "2024-03-06 14:00"))
            case .fault where page == 2:
                if let reply = fault?.reply(phase.nextFaultAttempt()) { return reply }
                return xml(200, Pages.clean(page))
            case .fault, .cleared:
                return xml(200, Pages.clean(page))
            }
        }
    }

    /// Columns that differ between two databases fed by different servers and runs: run ids,
    /// fetch times, archive paths and request URLs (the loopback port).
    static let crossDatabaseColumns: Set<String> = ["run_id", "fetched_at", "archive_path", "request_url"]

    /// The normalized content after the baseline and a clean run.
    static func reference(provenance: Bool, store: TestStore) async throws -> String {
        return try await onOwnThread {
            let phase = Phase()
            let server = try server(nil, phase: phase)
            defer { server.stop() }
            var env = try RelEnvironment("reference", store: store)
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try env.writePipeline("seoul", Pages.provincePipeline)
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .success)
            phase.set(.cleared)
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .success)
            return try normalized(env.db, provenance: provenance)
        }
    }

    static func normalized(_ db: TestDatabase, provenance: Bool) throws -> String {
        try db.dump(excludingTables: TestDatabase.bookkeeping.union(provenance ? [] : ["payload"]),
                    excludingColumns: crossDatabaseColumns.union(provenance ? [] : ["payload_sha256", "content_type"]))
    }

    @Test(arguments: faults, TestStore.all)
    func faultOnPageTwo(_ fault: Fault, store: TestStore) async throws {
        try await onOwnThread {
            let phase = Phase()
            let server = try Self.server(fault, phase: phase)
            defer { server.stop() }
            var env = try RelEnvironment("fault", store: store)
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            env.timeout = 30
            env.variables.merge(fault.variables) { _, b in b }
            let pipelines = try env.writePipeline("seoul", Pages.provincePipeline)
            let paths = env.paths(pipelines: pipelines)

            // Given a database holding an earlier hour…
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths) == .success, "\(env.printed)")
            let before = try env.db.dump()
            #expect(before.contains("## measurement (7)"))

            // …when page 2 misbehaves…
            phase.set(.fault)
            env.timeout = fault.timeout
            let started = Date()
            let status = await env.feedline.run(names: ["seoul"], source: .live, paths: paths)
            let elapsed = Date().timeIntervalSince(started)
            env.timeout = 30
            // Alone, every fault run here ends within a few seconds (retries wait 5–20 ms, the
            // faults' timeouts and deadlines are 2–5 s). The bound is for a run that hangs, or waits
            // out the production fetch deadline (120 s) instead of the one it was given: on a
            // 2-core host running the rest of the suite beside it, contention alone stretched
            // runs of a second to 32 s, so it leaves room for that. (Whether the given timeouts
            // are used is checked by the outcomes: "timed out", the attempts counted.)
            #expect(elapsed < 120, "a fault must not hang the run (\(elapsed) s)")

            // …the run completes correctly or fails clearly, leaving the data as it was.
            switch fault.outcome {
            case .fails(let expected, let attempts, let says):
                #expect(status == expected, "\(fault.name): \(env.out.text)")
                #expect(phase.page2Attempts == attempts, "\(fault.name): page 2 was asked \(phase.page2Attempts) times")
                let errorLines = env.out.text.split(separator: "\n").filter { $0.contains("error:") }
                #expect(errorLines.count == 1, "one clear line: \(env.out.text)")
                for fragment in says { #expect(errorLines.first?.contains(fragment) == true, "\(fault.name): '\(fragment)' missing from \(errorLines)") }
                let after = try env.db.dump()
                #expect(after == before, "\(fault.name): a failed run changed the data: \(TestDatabase.firstDifference(after, before))")
                #expect(try env.db.integer("SELECT count(*) FROM run WHERE status = 'failed' AND error IS NOT NULL") == 1)
                #expect(try env.db.integer("SELECT count(*) FROM run WHERE status = 'running'") == 0)
            case .completesClean:
                #expect(status == .success, "\(fault.name): \(env.printed)")
                let reference = try await Self.reference(provenance: !fault.provenanceDiffers, store: store)
                let got = try Self.normalized(env.db, provenance: !fault.provenanceDiffers)
                #expect(got == reference, "\(fault.name): \(TestDatabase.firstDifference(got, reference))")
            case .completesWith(let stations):
                #expect(status == .success, "\(fault.name): \(env.printed)")
                let loaded = try env.db.strings("SELECT station_name FROM measurement WHERE data_time = '2024-03-06 15:00' ORDER BY station_name")
                #expect(loaded == stations, "\(fault.name)")
                #expect(try env.db.integer("SELECT count(*) FROM measurement") == 7 + stations.count)
            }

            // When the fault clears, a re-run converges on the clean result.
            phase.set(.cleared)
            if fault.rerunNextDay { env.clock.advance(86_400) }
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths) == .success, "\(fault.name): \(env.printed)")
            let reference = try await Self.reference(provenance: !fault.provenanceDiffers, store: store)
            let converged = try Self.normalized(env.db, provenance: !fault.provenanceDiffers)
            #expect(converged == reference, "\(fault.name): the re-run did not converge: \(TestDatabase.firstDifference(converged, reference))")
            #expect(try env.db.isIntact())

            // The key never comes back out, whatever happened.
            #expect(!containsSentinel(Data(env.printed.utf8)), "\(fault.name): the key was printed or logged")
            #expect(!containsSentinel(allBytes(under: env.dir.url)), "\(fault.name): the key reached a file (archive or database)")
            #expect(!containsSentinel(Data(try env.db.dump(excludingTables: []).utf8)), "\(fault.name): the key reached the database")
            #expect(server.requests.allSatisfy { $0.request.query["serviceKey"] == sentinelKey }, "the key does reach the server")
        }
    }
}
