import App
import FeedCore
import Foundation
import OpenWeather
import Pipeline
import Testing
import TestSupport

/// Live runs keep to OpenWeather's 60 calls a minute on their own, against a loopback server,
/// on a virtual clock that the run's waits move forward (so minutes of pacing take milliseconds).
@Suite(.serialized) struct PacingTests {
    /// A clock that only moves when the run waits.
    final class VirtualTime: @unchecked Sendable {
        private let lock = NSLock()
        private var current = Date(timeIntervalSince1970: 1_709_703_000)
        var now: Date { lock.withLock { current } }
        func advance(_ seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(max(0, seconds)) } }
    }

    /// Notes the virtual time of every request it sends.
    struct StampingTransport: HTTPTransport {
        let base: any HTTPTransport
        let time: VirtualTime
        let sent: Stamps
        func get(_ url: URL, headers: [String: String]) async throws -> HTTPResponse {
            sent.append(time.now)
            return try await base.get(url, headers: headers)
        }
    }

    final class Stamps: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [Date] = []
        func append(_ d: Date) { lock.withLock { list.append(d) } }
        var all: [Date] { lock.withLock { list } }
    }

    /// A pipeline of `count` locations around Seoul, run live on virtual time.
    func runLive(_ count: Int, server: URL, variables: [String: String] = [:]) async throws
        -> (status: App.ExitStatus, sent: [Date], started: Date, env: EndToEndTests.Environment) {
        var env = try EndToEndTests.Environment()
        env.variables["OPENWEATHER_API_KEY"] = EndToEndTests.key
        env.variables["FEEDLINE_FETCH_DEADLINE_MS"] = "3600000"
        env.variables["FEEDLINE_RATE_LIMIT_WAIT_MS"] = nil  // the real minute: the clock here is virtual
        env.variables.merge(variables) { _, new in new }
        env.base = server
        let coordinates = (0..<count).map { i in "\"\(String(format: "%.4f", 37 + Double(i % 50) * 0.01)),\(String(format: "%.4f", 126.5 + Double(i / 50) * 0.01))\"" }
        let pipelines = try env.writePipeline("ow-many", """
            source: openweather
            operation: air-pollution
            format: json
            parameters:
              coordinates: [\(coordinates.joined(separator: ", "))]
            """)
        let time = VirtualTime(), stamps = Stamps()
        let started = time.now
        var environment = env.environment
        environment.clock = { time.now }
        // Waits for pacing and retries move the virtual clock; the fetch deadline (set to an
        // hour below) races a real request, so it is left to real time.
        environment.sleep = { seconds in
            if seconds >= 3600 { try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) } else { time.advance(seconds) }
        }
        environment.transport = StampingTransport(base: environment.transport, time: time, sent: stamps)
        let status = await Console(environment: environment).run(names: ["ow-many"], source: .live, paths: env.paths(pipelines: pipelines))
        return (status, stamps.all, started, env)
    }

    @Test func aPipelineOf130LocationsNeverSendsMoreThan60InAnyMinute() async throws {
        let server = try EndToEndTests.server()
        defer { server.stop() }
        let run = try await runLive(130, server: server.baseURL)
        defer { run.env.dir.remove() }
        #expect(run.status == .success, "\(run.env.err.text)")
        #expect(run.sent.count == 130 && server.requests.count == 130)
        for (i, start) in run.sent.enumerated() {
            let inMinute = run.sent[i...].prefix { $0 < start.addingTimeInterval(60) }.count
            #expect(inMinute <= 60, "\(inMinute) requests in the minute from \(start)")
        }
        // Paced, not slowed: 60 at once, 60 a minute later, the last 10 two minutes in.
        #expect(run.sent.last!.timeIntervalSince(run.started) == 120)
        #expect(try run.env.value("SELECT count(*) FROM openweather_air_pollution") == "130")
    }

    @Test func a429IsWaitedOutOnceThenTheRunStopsWithExit75() async throws {
        let server = try EndToEndTests.server(status: 429) { _ in #"{"cod":429,"message":"Your account is temporary blocked due to exceeding of requests limitation of your subscription type."}"# }
        defer { server.stop() }
        let run = try await runLive(2, server: server.baseURL)
        defer { run.env.dir.remove() }
        #expect(run.status == .temporaryFailure)
        #expect(server.requests.count == 2, "the first location: one try and one retry after the window; never a loop")
        #expect(run.sent.count == 2 && run.sent[1].timeIntervalSince(run.sent[0]) >= 60, "the retry waited for the window")
        let error = try #require(try run.env.value("SELECT error FROM run"))
        #expect(error.contains("rate limit answered again"), "\(error)")
        #expect(try run.env.value("SELECT count(*) FROM openweather_air_pollution") == "0")
    }

    @Test func aRetryAfterIsHonouredAndTheRunGoesOn() async throws {
        let server = try FaultServer { seen in
            if seen.attempt == 1 {
                return .respondWithHeaders(status: 429, contentType: "application/json", body: Data(#"{"cod":429,"message":"slow down"}"#.utf8),
                                           headers: ["Retry-After": "7"])
            }
            let text = #"{"coord":{"lon":126.5,"lat":37},"list":[{"main":{"aqi":1},"components":{"co":1,"no":0,"no2":1,"o3":1,"so2":1,"pm2_5":1,"pm10":1,"nh3":1},"dt":1709701200}]}"#
            return .respond(status: 200, contentType: "application/json", body: Data(text.utf8))
        }
        defer { server.stop() }
        let run = try await runLive(1, server: server.baseURL)
        defer { run.env.dir.remove() }
        #expect(run.status == .success, "\(run.env.err.text)")
        #expect(run.sent.count == 2 && run.sent[1].timeIntervalSince(run.sent[0]) == 7)
    }

    @Test func theDryRunOf650HourlyLocationsShowsCallsAMinuteADayAndAMonthAgainstEachLimit() async throws {
        var env = try EndToEndTests.Environment()
        defer { env.dir.remove() }
        env.variables["OPENWEATHER_API_KEY"] = EndToEndTests.key
        let coordinates = (0..<650).map { i in "\"\(37 + Double(i % 50) * 0.01),\(126.5 + Double(i / 50) * 0.01)\"" }
        let pipelines = try env.writePipeline("ow-650", """
            source: openweather
            operation: air-pollution
            format: json
            schedule: "15 * * * *"
            parameters:
              coordinates: [\(coordinates.joined(separator: ", "))]
            """)
        let status = await env.feedline.run(names: ["ow-650"], source: .live, paths: env.paths(pipelines: pipelines), dryRun: true)
        #expect(status == .success, "\(env.err.text)")
        let rate = try #require(env.out.text.split(separator: "\n").first { $0.hasPrefix("rate openweather:") })
        #expect(rate == "rate openweather: 650 calls a run; ≤ 60 a minute (paced; limit 60/minute); 15,600 a day (limit 32,258/day); "
                + "468,000 a month (limit 1,000,000/month); pacing makes a run take about 10 min")
    }

    @Test func aWindowTheServerSaysIsUsedUpHoldsTheNextCallUntilItResets() async throws {
        let body = #"{"coord":{"lon":126.5,"lat":37},"list":[{"main":{"aqi":1},"components":{"co":1,"no":0,"no2":1,"o3":1,"so2":1,"pm2_5":1,"pm10":1,"nh3":1},"dt":1709701200}]}"#
        let server = try FaultServer { seen in
            // The first answer says the window has no calls left for 30 s.
            seen.request.query["lat"] == "37.0000"
                ? .respondWithHeaders(status: 200, contentType: "application/json", body: Data(body.utf8),
                                      headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "30"])
                : .respond(status: 200, contentType: "application/json", body: Data(body.utf8))
        }
        defer { server.stop() }
        let run = try await runLive(2, server: server.baseURL)
        defer { run.env.dir.remove() }
        #expect(run.status == .success, "\(run.env.err.text)")
        #expect(run.sent.count == 2 && run.sent[1].timeIntervalSince(run.sent[0]) == 30)
    }
}
