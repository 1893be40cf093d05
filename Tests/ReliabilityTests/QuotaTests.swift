import AirKorea
import App
import Domain
import FeedCore
import Foundation
import Pipeline
import Storage
import Testing
import TestSupport

/// Quota awareness: calls counted per API key and KST day in the database, refused before a
/// run starts when the first pages would not fit, refused mid-run at the limit, and shown by
/// `--dry-run` without calling anything.
@Suite struct QuotaTests {
    static let scope = QuotaScope(source: "airkorea", api: "ArpltnInforInqireSvc", credentialVariable: "AIRKOREA_SERVICE_KEY", keyFingerprint: "abc123")
    static let day = LocalDate(year: 2024, month: 3, day: 6)!

    /// Serves the clean 3-page sequence (any province), counting requests.
    static func server(fault: (@Sendable (FaultServer.Seen) -> FaultServer.Reply?)? = nil) throws -> FaultServer {
        try FaultServer { seen in
            if let reply = fault?(seen) { return reply }
            return .respond(status: 200, contentType: "text/xml", body: Pages.clean(Pages.page(of: seen.request)))
        }
    }

    // MARK: - Pure parts

    @Test func limitsComeFromTheEnvironmentOverTheDefaults() throws {
        #expect(QuotaLimits(feeds: [AirKoreaFeed()]).limit(for: "airkorea") == 500)
        #expect(QuotaLimits.variableName(for: "airkorea") == "FEEDLINE_QUOTA_AIRKOREA")
        #expect(try QuotaLimits.fromEnvironment(["FEEDLINE_QUOTA_AIRKOREA": "10000"], feeds: [AirKoreaFeed()]).limit(for: "airkorea") == 10000)
        #expect(try QuotaLimits.fromEnvironment(["FEEDLINE_QUOTA_AIRKOREA": "none"], feeds: [AirKoreaFeed()]).limit(for: "airkorea") == nil)
        #expect(try QuotaLimits.fromEnvironment(["FEEDLINE_QUOTA_AIRKOREA": "0"], feeds: [AirKoreaFeed()]).limit(for: "airkorea") == 0)
        #expect(throws: QuotaConfigurationError.self) { try QuotaLimits.fromEnvironment(["FEEDLINE_QUOTA_AIRKOREA": "-3"], feeds: [AirKoreaFeed()]) }
    }

    @Test func theMinimumCostIsOneCallPerFirstPagePerScope() {
        let base = URL(string: "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty")!
        let credential = CredentialRequirement(environmentVariable: "AIRKOREA_SERVICE_KEY", placement: .query("serviceKey"))
        let requests = (1...3).map { FeedRequest(source: "airkorea", operation: "getCtprvnRltmMesureDnsty", baseURL: base,
                                                 query: [QueryItem("sidoName", "\($0)")], format: .xml, credential: credential) }
        let minimum = QuotaPlanner.minimumCalls(requests) { QuotaScope(request: $0, keyFingerprint: "f") }
        let scope = QuotaScope(source: "airkorea", api: "ArpltnInforInqireSvc", credentialVariable: "AIRKOREA_SERVICE_KEY", keyFingerprint: "f")
        #expect(minimum == [scope: 3])
        let checks = QuotaPlanner.check(minimum, used: [scope: 498], limits: QuotaLimits(feeds: [AirKoreaFeed()]), day: Self.day)
        #expect(checks.count == 1 && checks[0].remaining == 2 && !checks[0].fits)
        #expect(checks[0].sentence.contains("needs at least 3 calls; 498 of 500 used today, 2 left"))
        #expect(QuotaPlanner.check(minimum, used: [scope: 497], limits: QuotaLimits(feeds: [AirKoreaFeed()]), day: Self.day)[0].fits)
    }

    @Test func theFingerprintNeverContainsTheKeyAndIgnoresItsEncoding() {
        let fp = QuotaCountingFetcher.fingerprint(ofKey: sentinelKey)
        #expect(fp.count == 12 && !sentinelKey.contains(fp) && !fp.contains("SENTINEL"))
        #expect(QuotaCountingFetcher.fingerprint(ofKey: FeedRequest.percentEncode(sentinelKey)) == fp)
        #expect(QuotaCountingFetcher.fingerprint(ofKey: "other") != fp)
    }

    // MARK: - The ledger

    @Test func concurrentReservationsNeverCountPastTheLimit() throws {
        let dir = try TemporaryDirectory("quota")
        defer { dir.remove() }
        let path = dir.path("q.sqlite").path
        // Two stores on one file: two "processes" sharing a key; eight threads asking at once.
        let stores = [try SQLiteStore(path: path, schema: .feedline), try SQLiteStore(path: path, schema: .feedline)]
        let granted = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<20 where (try? stores[worker % 2].reserveCall(Self.scope, on: Self.day, limit: 50)) == true { granted.add() }
        }
        #expect(granted.value == 50)
        #expect(try stores[0].callsMade(Self.scope, on: Self.day) == 50)
        #expect(try stores[1].callsMade(Self.scope, on: Self.day.adding(days: 1)) == 0, "a new KST day starts at zero")
        #expect(try stores[0].reserveCall(Self.scope, on: Self.day, limit: nil), "no limit: always counted")
        #expect(try stores[0].callsMade(Self.scope, on: Self.day) == 51)
        #expect(try !stores[0].reserveCall(Self.scope, on: Self.day.adding(days: 2), limit: 0), "a limit of 0 allows nothing")
        try stores[0].markExhausted(Self.scope, on: Self.day.adding(days: 3), limit: 500)
        #expect(try stores[0].callsMade(Self.scope, on: Self.day.adding(days: 3)) == 500)
        #expect(try !stores[0].reserveCall(Self.scope, on: Self.day.adding(days: 3), limit: 500))
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.withLock { n += 1 } }
        var value: Int { lock.withLock { n } }
    }

    // MARK: - End to end

    @Test func everyCallIsCountedPerKeyAndKSTDayRetriesIncludedAndTheKeyIsNotStored() async throws {
        try await onOwnThread {
            let server = try Self.server { seen in
                Pages.page(of: seen.request) == 1 && seen.attempt == 1 ? .respond(status: 503, contentType: "text/plain", body: Data("busy".utf8)) : nil
            }
            defer { server.stop() }
            var env = try RelEnvironment("quota-count")
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try env.writePipeline("seoul", Pages.provincePipeline)
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .success, "\(env.printed)")
            #expect(server.requests.count == 4)
            #expect(try DatabaseDump.integer(env.database, """
                SELECT calls FROM api_call WHERE source = 'airkorea' AND api = 'ArpltnInforInqireSvc'
                  AND credential_variable = 'AIRKOREA_SERVICE_KEY' AND kst_date = '2024-03-06'
                  AND key_fingerprint = '\(QuotaCountingFetcher.fingerprint(ofKey: sentinelKey))'
                """) == 4)
            #expect(env.logs.text.contains("retrying after a transient error"))
            #expect(!containsSentinel(allBytes(under: env.dir.url)))
        }
    }

    @Test func aRunWhoseFirstPagesWouldExceedTheQuotaDoesNotStart() async throws {
        try await onOwnThread {
            let server = try Self.server()
            defer { server.stop() }
            var env = try RelEnvironment("quota-refuse")
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            env.variables["FEEDLINE_QUOTA_AIRKOREA"] = "2"
            let pipelines = try env.writePipeline("three", Pages.provincePipeline.replacingOccurrences(of: "sidoName: 서울", with: "sidoName: [서울, 부산, 대구]"))
            let status = await env.feedline.run(names: ["three"], source: .live, paths: env.paths(pipelines: pipelines))
            #expect(status == .deferred)
            #expect(env.err.text.contains("not starting"))
            #expect(env.err.text.contains("needs at least 3 calls; 0 of 2 used today, 2 left"))
            #expect(server.requests.isEmpty, "nothing may be called")
            #expect(try DatabaseDump.integer(env.database, "SELECT count(*) FROM run") == 0, "nothing started")
        }
    }

    @Test func theLimitStopsARunMidwayAndTheDatabaseKeepsNothingOfIt() async throws {
        try await onOwnThread {
            let server = try Self.server()
            defer { server.stop() }
            var env = try RelEnvironment("quota-midway")
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            env.variables["FEEDLINE_QUOTA_AIRKOREA"] = "2"
            let pipelines = try env.writePipeline("seoul", Pages.provincePipeline)
            let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
            #expect(status == .deferred)
            #expect(server.requests.count == 2, "the third page is refused before it is sent")
            #expect(env.out.text.contains("feedline has counted 2 of the 2 calls"))
            #expect(try DatabaseDump.integer(env.database, "SELECT count(*) FROM measurement") == 0)
            #expect(try DatabaseDump.integer(env.database, "SELECT count(*) FROM run WHERE status = 'failed'") == 1)
        }
    }

    @Test func theAPIsOwnQuotaErrorStopsLaterRunsBeforeTheyCallUntilTheNextKSTDay() async throws {
        try await onOwnThread {
            let exhausted = AirKoreaPages.gatewayError(code: "22", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR")
            let server = try Self.server { seen in
                seen.request.query["sidoName"] == "서울" && Pages.page(of: seen.request) == 2
                    ? .respond(status: 200, contentType: "text/xml", body: exhausted) : nil
            }
            defer { server.stop() }
            var env = try RelEnvironment("quota-22")
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try env.writePipeline("seoul", Pages.provincePipeline)
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .deferred)
            #expect(server.requests.count == 2, "22 is not retried")
            #expect(try DatabaseDump.integer(env.database, "SELECT calls FROM api_call WHERE kst_date = '2024-03-06'") == 500)

            // Later the same KST day: refused before any call.
            env.clock.advance(3600 * 8)  // 23:00 KST
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .deferred)
            #expect(server.requests.count == 2)
            #expect(env.err.text.contains("500 of 500 used today, 0 left"))

            // After midnight KST the count starts again (this province is not exhausted on the server).
            env.clock.advance(3600)  // 00:00 KST the next day
            let busan = try env.writePipeline("busan", Pages.provincePipeline.replacingOccurrences(of: "서울", with: "부산"))
            #expect(await env.feedline.run(names: ["busan"], source: .live, paths: env.paths(pipelines: busan)) == .success, "\(env.printed)")
            #expect(server.requests.count == 5)
        }
    }

    @Test func dryRunPrintsTheRedactedPlanAndItsCostAndCallsNothing() async throws {
        try await onOwnThread {
            let server = try Self.server()
            defer { server.stop() }
            var env = try RelEnvironment("dry-run")
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try env.writePipeline("three", Pages.provincePipeline.replacingOccurrences(of: "sidoName: 서울", with: "sidoName: [서울, 부산, 대구]"))
            let status = await env.feedline.run(names: ["three"], source: .live, paths: env.paths(pipelines: pipelines), dryRun: true)
            #expect(status == .success, "\(env.printed)")
            let text = env.out.text
            #expect(text.components(separatedBy: "pages 1+").count - 1 == 3)
            #expect(text.contains("serviceKey=REDACTED"))
            #expect(text.contains("3 requests, at least 3 calls"))
            #expect(text.contains("needs at least 3 calls; 0 of 500 used today, 500 left — fits"))
            #expect(server.requests.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: env.database.path), "a dry run writes nothing")
            #expect(!containsSentinel(Data(env.printed.utf8)))

            // With today's usage near the limit, the dry run says the run would not start.
            env.variables["FEEDLINE_QUOTA_AIRKOREA"] = "2"
            let json = await env.feedline.run(names: ["three"], source: .live, paths: env.paths(pipelines: pipelines), json: true, dryRun: true)
            #expect(json == .deferred)
            let parsed = try JSONSerialization.jsonObject(with: Data((env.out.text.split(separator: "\n").last ?? "").utf8)) as? [String: Any]
            let quota = (parsed?["quota"] as? [[String: Any]])?.first
            #expect(quota?["fits"] as? Bool == false && quota?["minimum_calls"] as? Int == 3)
            #expect(server.requests.isEmpty)
        }
    }
}
