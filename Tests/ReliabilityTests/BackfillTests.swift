import App
import Domain
import Foundation
import Testing
import TestSupport

/// Backfill: the pure planner, then `feedline backfill` end to end against a loopback AirKorea
/// that answers realtime-by-station requests by `dataTerm`.
@Suite struct BackfillTests {
    /// 2024-03-06 15:00 KST: the newest complete hour is 14h (AirKorea label 15:00).
    static let now = Date(timeIntervalSince1970: 1_709_704_800)
    static func day(_ d: Int) -> LocalDate { LocalDate(year: 2024, month: 3, day: d)! }
    static func slot(_ d: Int, _ h: Int) -> HourSlot { HourSlot(date: day(d), hour: h)! }

    // MARK: - Pure planning

    @Test func expectedHoursStopAtTheNewestCompleteHour() {
        let slots = BackfillPlanner.expectedSlots(from: Self.day(4), through: Self.day(10), now: Self.now)
        #expect(slots.count == 24 + 24 + 15)
        #expect(slots.first == Self.slot(4, 0) && slots.last == Self.slot(6, 14))
        #expect(BackfillPlanner.expectedSlots(from: Self.day(7), through: Self.day(8), now: Self.now).isEmpty)
        #expect(BackfillPlanner.newestCompleteHour(at: Self.now).airKoreaLabel == "2024-03-06 15:00")
    }

    @Test func theSmallestDataTermReachingTheOldestMissingHourIsChosen() {
        let newest = Self.slot(6, 14)
        #expect(BackfillPlanner.dataTerm(reaching: Self.slot(6, 0), newest: newest) == .daily)     // 15 hours back
        #expect(BackfillPlanner.dataTerm(reaching: Self.slot(5, 16), newest: newest) == .daily)    // 23 hours: DAILY's reach
        #expect(BackfillPlanner.dataTerm(reaching: Self.slot(5, 15), newest: newest) == .month)    // 24 hours
        #expect(BackfillPlanner.dataTerm(reaching: HourSlot(date: Self.day(6).adding(days: -27), hour: 15)!, newest: newest) == .month)
        #expect(BackfillPlanner.dataTerm(reaching: HourSlot(date: Self.day(6).adding(days: -28), hour: 14)!, newest: newest) == .threeMonths)
        #expect(BackfillPlanner.dataTerm(reaching: HourSlot(date: Self.day(6).adding(days: -120), hour: 0)!, newest: newest) == nil)
        #expect(BackfillPlanner.estimatedCalls(.daily, pageSize: 1000) == 1)
        #expect(BackfillPlanner.estimatedCalls(.month, pageSize: 1000) == 1)
        #expect(BackfillPlanner.estimatedCalls(.threeMonths, pageSize: 1000) == 3)
        #expect(BackfillPlanner.estimatedCalls(.month, pageSize: 100) == 8)
    }

    @Test func onlyStationsWithGapsAreFetchedWithinTheQuota() {
        let full: [LocalDate: UInt32] = [Self.day(4): 0xFF_FFFF, Self.day(5): 0xFF_FFFF, Self.day(6): 0x7FFF]
        var recentGap = full
        recentGap[Self.day(6)] = 0x7FFF & ~UInt32(0b111 << 3)          // 03-06 03h…05h missing
        let present: [String: [LocalDate: UInt32]] = ["A": full, "B": recentGap, "C": [Self.day(5): 0xFF_FFFF, Self.day(6): 0x7FFF]]
        let plan = BackfillPlanner.plan(stations: ["A", "B", "C", "D"], from: Self.day(4), through: Self.day(6), now: Self.now,
                                        present: present, pageSize: 1000, remainingCalls: 2)
        #expect(plan.gaps.map(\.station) == ["B", "C", "D"])
        #expect(plan.gaps[0].missing == [Self.slot(6, 3), Self.slot(6, 4), Self.slot(6, 5)])
        #expect(plan.gaps[1].missing.count == 24 && plan.gaps[2].missing.count == 63)
        #expect(plan.fetches.map(\.station) == ["B", "C"] && plan.fetches.map(\.dataTerm) == [.daily, .month])
        #expect(plan.skippedForQuota.map(\.station) == ["D"], "the quota (2 calls) is spent on B and C")
        #expect(plan.groups.map(\.dataTerm) == [.daily, .month])
        #expect(BackfillPlanner.describe(plan.gaps[0].missing) == "2024-03-06 03h–05h KST")
        #expect(BackfillPlanner.describe([Self.slot(4, 23), Self.slot(5, 0), Self.slot(5, 7)]) == "2024-03-04 23h–2024-03-05 00h, 2024-03-05 07h KST")
    }

    @Test func hoursOlderThanTheAPIKeepsAreReportedNotFetched() {
        let old = LocalDate(year: 2023, month: 10, day: 1)!
        let plan = BackfillPlanner.plan(stations: ["A"], from: old, through: old.adding(days: 1), now: Self.now,
                                        present: [:], pageSize: 1000, remainingCalls: nil)
        #expect(plan.fetches.isEmpty && plan.unreachable["A"]?.count == 48)
    }

    // MARK: - End to end

    /// By-station AirKorea: for each station, the hours `dataTerm` covers (DAILY 24, MONTH 720,
    /// 3MONTH 2160) up to the newest complete hour, minus `omitted`, paged by `numOfRows`.
    static func server(omitted: Set<String> = []) throws -> FaultServer {
        try FaultServer { seen in
            let q = seen.request.query
            let newest = BackfillPlanner.newestCompleteHour(at: Self.now)
            let hours = ["DAILY": 24, "MONTH": 720, "3MONTH": 2160][q["dataTerm"] ?? ""] ?? 0
            let station = q["stationName"] ?? "?"
            let newestIndex = newest.date.daysSinceEpoch * 24 + newest.hour
            let all = (0..<hours).reversed().compactMap { back -> AirKoreaPages.Item? in
                let i = newestIndex - back
                let slot = HourSlot(date: LocalDate(daysSinceEpoch: i / 24), hour: i % 24)!
                let key = "\(station) \(slot.airKoreaLabel)"
                return omitted.contains(key) ? nil : AirKoreaPages.Item(station: station, dataTime: slot.airKoreaLabel, pm10: String(20 + i % 30), pm25: "9")
            }.reversed()
            let rows = Int(q["numOfRows"] ?? "") ?? 10, page = Int(q["pageNo"] ?? "") ?? 1
            let slice = Array(all.dropFirst((page - 1) * rows).prefix(rows))
            return .respond(status: 200, contentType: "text/xml", body: AirKoreaPages.xml(slice, pageNo: page, numOfRows: rows, totalCount: all.count))
        }
    }

    static let pipeline = """
        source: airkorea
        operation: realtime-by-station
        parameters:
          stationName: [A, B, C]
          dataTerm: DAILY
          ver: "1.4"
        format: xml
        page_size: 100
        """

    /// A: complete 03-04…03-06; B: missing 03-06 03h–05h; C: missing 03-04 10h and 03-05 20h.
    static func prepare(_ env: RelEnvironment) async throws -> URL {
        let pages = env.dir.path("seed")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        let expected = BackfillPlanner.expectedSlots(from: day(4), through: day(6), now: now)
        for station in ["A", "B", "C"] {
            let skip: Set<HourSlot> = station == "B" ? [slot(6, 3), slot(6, 4), slot(6, 5)] : station == "C" ? [slot(4, 10), slot(5, 20)] : []
            let items = expected.filter { !skip.contains($0) }.map {
                AirKoreaPages.Item(station: station, dataTime: $0.airKoreaLabel, pm10: "30", pm25: "9")
            }
            try AirKoreaPages.xml(items, pageNo: 1, numOfRows: 1000, totalCount: items.count).write(to: pages.appendingPathComponent("\(station).xml"))
        }
        let status = await env.feedline.replay(inputs: [pages.path], sourceHint: "airkorea", parameters: [:],
                                         paths: Paths(environment: env.environment, database: env.db.argument), force: false)
        #expect(status == .success, "\(env.printed)")
        return try env.writePipeline("bf", pipeline)
    }

    @Test(arguments: TestStore.all)
    func backfillFetchesOnlyStationsWithGapsWithTheSmallestDataTermAndSaysWhatIsStillMissing(store: TestStore) async throws {
        try await onOwnThread {
            let server = try Self.server(omitted: ["C 2024-03-05 21:00"])
            defer { server.stop() }
            var env = try RelEnvironment("backfill", store: store)
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try await Self.prepare(env)
            #expect(try env.db.integer("SELECT sum(hours_present) FROM measurement_completeness WHERE kst_date BETWEEN '2024-03-04' AND '2024-03-06'") == 63 * 3 - 5)

            let status = await env.feedline.backfill(pipeline: "bf", from: Self.day(4), through: Self.day(6), paths: env.paths(pipelines: pipelines))
            #expect(status == .success, "\(env.printed)")

            let asked = server.requests.map { "\($0.request.query["stationName"] ?? "") \($0.request.query["dataTerm"] ?? "") \($0.request.query["numOfRows"] ?? "")" }
            #expect(asked == ["B DAILY 1000", "C MONTH 1000"], "only stations with gaps, smallest dataTerm, one page each")
            let text = env.out.text
            #expect(text.contains("A: complete (63 of 63 hours)"))
            #expect(text.contains("B: missing 3 of 63 hours: 2024-03-06 03h–05h KST"))
            #expect(text.contains("plan: C: dataTerm=MONTH"))
            #expect(text.contains("B: filled 3 of 3 missing hours; nothing is missing any more"))
            #expect(text.contains("C: filled 1 of 2 missing hours; still missing 1: 2024-03-05 20h KST (not returned by the API)"))

            // The completeness view agrees; the loads went through the ledger like any live run.
            #expect(try env.db.strings("""
                SELECT station_name || ' ' || sum(hours_present) FROM measurement_completeness
                WHERE kst_date BETWEEN '2024-03-04' AND '2024-03-06' GROUP BY station_name ORDER BY station_name
                """) == ["A 63", "B 63", "C 62"])
            #expect(try env.db.integer("SELECT count(*) FROM run WHERE pipeline = 'bf:backfill' AND mode = 'live' AND status = 'succeeded'") == 2)
            #expect(try env.db.integer("SELECT sum(calls) FROM api_call") == 2)
            #expect(!containsSentinel(allBytes(under: env.dir.url)) && !containsSentinel(Data(env.printed.utf8)))

            // Nothing left that the API has: a second backfill fetches only C again and changes nothing.
            let again = await env.feedline.backfill(pipeline: "bf", from: Self.day(4), through: Self.day(6), paths: env.paths(pipelines: pipelines))
            #expect(again == .success)
            #expect(try env.db.integer("SELECT count(*) FROM measurement WHERE station_name = 'C'") == 719)
        }
    }

    @Test(arguments: TestStore.all)
    func backfillKeepsToTheQuotaAndDryRunTouchesNothing(store: TestStore) async throws {
        try await onOwnThread {
            let server = try Self.server()
            defer { server.stop() }
            var env = try RelEnvironment("backfill-quota", store: store)
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try await Self.prepare(env)
            let before = try env.db.dump()

            let dry = await env.feedline.backfill(pipeline: "bf", from: Self.day(4), through: Self.day(6), paths: env.paths(pipelines: pipelines), dryRun: true)
            #expect(dry == .success)
            #expect(server.requests.isEmpty)
            #expect(try env.db.dump() == before)
            #expect(env.out.text.contains("quota: about 2 calls planned"))

            env.variables["FEEDLINE_QUOTA_AIRKOREA"] = "1"
            let status = await env.feedline.backfill(pipeline: "bf", from: Self.day(4), through: Self.day(6), paths: env.paths(pipelines: pipelines))
            #expect(status == .partial, "\(env.printed)")
            #expect(server.requests.map { $0.request.query["stationName"] } == ["B"])
            #expect(env.out.text.contains("plan: C: NOT fetched"))
            #expect(env.out.text.contains("(not fetched: quota)"))
        }
    }

    @Test func backfillRefusesPipelinesWithoutHistory() async throws {
        try await onOwnThread {
            let env = try RelEnvironment("backfill-refuse")
            defer { env.dir.remove() }
            let pipelines = try env.writePipeline("seoul", Pages.provincePipeline)
            let status = await env.feedline.backfill(pipeline: "seoul", from: Self.day(4), through: Self.day(6), paths: env.paths(pipelines: pipelines))
            #expect(status == .configuration)
            #expect(env.err.text.contains("realtime-by-station"))
            #expect(!FileManager.default.fileExists(atPath: env.database.path))
        }
    }

    @Test("a range spanning more than 366 days is refused with one line, before anything is read, planned or fetched")
    func backfillRefusesRangesBeyondTheBound() async throws {
        try await onOwnThread {
            let server = try Self.server(omitted: [])
            defer { server.stop() }
            var env = try RelEnvironment("backfill-range")
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try env.writePipeline("bf", Self.pipeline)
            let ancient = LocalDate(year: 1824, month: 1, day: 1)!
            for dryRun in [true, false] {
                let status = await env.feedline.backfill(pipeline: "bf", from: ancient, through: Self.day(6), paths: env.paths(pipelines: pipelines), dryRun: dryRun)
                #expect(status == .usage)
            }
            #expect(env.err.text.contains("--from 1824-01-01 --to 2024-03-06 spans 73115 days; a backfill spans at most 366"), "\(env.err.text)")
            #expect(server.requests.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: env.database.path))
        }
        // The bound itself: 366 days are allowed, 367 are not; an old range within it is planned
        // (and its hours reported as older than the API keeps).
        #expect(BackfillPlanner.rangeProblem(from: Self.day(6).adding(days: -365), through: Self.day(6)) == nil)
        #expect(BackfillPlanner.rangeProblem(from: Self.day(6).adding(days: -366), through: Self.day(6)) != nil)
        #expect(BackfillPlanner.rangeProblem(from: LocalDate(year: 1824, month: 1, day: 1)!, through: LocalDate(year: 1824, month: 1, day: 2)!) == nil)
    }
}
