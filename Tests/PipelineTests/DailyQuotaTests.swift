import Domain
import Foundation
import Pipeline
import PropertyBased
import Testing

/// The arithmetic of a day under the schedules: runs per quota day (KST) from a cron schedule,
/// and calls per scope on the busiest day against its limit.
@Suite struct DailyQuotaTests {
    static let first = LocalDate(year: 2024, month: 3, day: 4)!  // a Monday
    static let arpltn = QuotaScope(source: "airkorea", api: "ArpltnInforInqireSvc", credentialVariable: "AIRKOREA_SERVICE_KEY", keyFingerprint: "")
    static let msrstn = QuotaScope(source: "airkorea", api: "MsrstnInfoInqireSvc", credentialVariable: "AIRKOREA_SERVICE_KEY", keyFingerprint: "")
    static let limits = QuotaLimits(perSource: ["airkorea": 500])

    func runs(_ cron: String, _ zone: String = "Asia/Seoul", days: Int = 14) throws -> [Int] {
        QuotaPlanner.runsPerQuotaDay(try CronSchedule(cron, timeZone: zone), from: Self.first, days: days)
    }

    @Test("runs per quota day: hourly 24, four releases 4, weekly on its weekday, and a UTC schedule counted in KST days")
    func runsPerDay() throws {
        #expect(try runs("25 * * * *") == Array(repeating: 24, count: 14))
        #expect(try runs("10 5,11,17,23 * * *") == Array(repeating: 4, count: 14))
        #expect(try runs("*/30 * * * *") == Array(repeating: 48, count: 14))
        #expect(try runs("0 3 * * 1") == (0..<14).map { $0 % 7 == 0 ? 1 : 0 })
        // 23:30 UTC is 08:30 KST the next day: one run in every KST day.
        #expect(try runs("30 23 * * *", "UTC") == Array(repeating: 1, count: 14))
        // 20:00 and 21:00 New York (EST, UTC−5) are 10:00 and 11:00 KST the next day; both land in one KST day.
        #expect(try runs("0 20,21 * * *", "America/New_York", days: 3) == [2, 2, 2])
        #expect(try runs("@monthly", days: 60).reduce(0, +) == 2)
    }

    @Test("runs per quota day add up to the fire times the schedule gives one by one")
    func runsAddUpToFireTimes() throws {
        let expressions = ["25 * * * *", "*/15 * * * *", "10 5,11,17,23 * * *", "0 3 * * 1", "40 6 1 * *", "30 2 * * *", "0 0 29 2 *", "7 */2 * * 1-5"]
        let zones = ["Asia/Seoul", "UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"]
        let input = zip(Gen.element(of: expressions), Gen.element(of: zones), Gen.int(in: 0...3_000), Gen.int(in: 1...40))
        try seededPropertyCheck(count: 120, input: input) { expression, zone, offset, days in
            let expression = try #require(expression), zone = try #require(zone)
            let schedule = try CronSchedule(expression, timeZone: zone)
            let first = LocalDate(year: 2020, month: 1, day: 1)!.adding(days: offset)
            let perDay = QuotaPlanner.runsPerQuotaDay(schedule, from: first, days: days)
            #expect(perDay.count == days)
            // The same period walked with nextFireTime, one run at a time.
            let start = HourSlot(date: first, hour: 0)!.start, end = HourSlot(date: first.adding(days: days), hour: 0)!.start
            var counted = [Int](repeating: 0, count: days)
            var cursor = start.addingTimeInterval(-1)
            while let next = schedule.nextFireTime(after: cursor), next < end {
                counted[quotaDay(next).daysSinceEpoch - first.daysSinceEpoch] += 1
                cursor = next
            }
            #expect(perDay == counted, "\(expression) in \(zone) from \(first)")
        }
    }

    /// Pipelines sharing two scopes: calls a run per scope and runs on each of `days` days.
    static let pipelines = Generator<[(name: String, callsPerRun: [QuotaScope: Int], runsPerDay: [Int])],
                                     Shrink.None<[(name: String, callsPerRun: [QuotaScope: Int], runsPerDay: [Int])]>> { rng in
        let days = Int.random(in: 1...20, using: &rng)
        return (0..<Int.random(in: 1...5, using: &rng)).map { i in
            var calls: [QuotaScope: Int] = [:]
            for scope in [arpltn, msrstn] where Bool.random(using: &rng) { calls[scope] = Int.random(in: 1...20, using: &rng) }
            return ("p\(i)", calls, (0..<days).map { _ in Int.random(in: 0...48, using: &rng) })
        }
    }

    @Test("a scope's calls a day are its busiest day's Σ calls a run × runs, and they stand against the limit")
    func busiestDay() throws {
        try seededPropertyCheck(count: 300, input: Self.pipelines) { pipelines in
            let uses = QuotaPlanner.dailyUse(pipelines, firstDay: Self.first, limits: Self.limits)
            let scopes = Set(pipelines.flatMap(\.callsPerRun.keys))
            #expect(uses.map(\.scope) == scopes.sorted())
            for use in uses {
                let totals = (0..<pipelines[0].runsPerDay.count).map { day in
                    pipelines.reduce(0) { $0 + ($1.callsPerRun[use.scope] ?? 0) * $1.runsPerDay[day] }
                }
                let busiest = try #require(totals.firstIndex(of: totals.max()!))
                #expect(use.day == Self.first.adding(days: busiest))
                #expect(use.callsPerDay == totals[busiest])
                for share in use.pipelines {
                    let p = try #require(pipelines.first { $0.name == share.pipeline })
                    #expect(share.callsPerRun == p.callsPerRun[use.scope] && share.runsPerDay == p.runsPerDay[busiest] && share.runsPerDay > 0)
                }
                #expect(use.limit == 500)
                switch use.standing {
                case .exceeds: #expect(use.callsPerDay > 500)
                case .nearLimit: #expect(use.callsPerDay <= 500 && use.callsPerDay > 400)
                case .fits: #expect(use.callsPerDay <= 400)
                case .unlimited: Issue.record("airkorea has a limit")
                }
            }
        }
    }

    @Test("the bundled shape of the issue: 18 province requests an hour spend 484 of 500 calls; one 전국 request 76")
    func provincesExample() {
        let day = [Int](repeating: 24, count: 1)
        func use(provinceRequests: Int) -> DailyQuotaUse {
            QuotaPlanner.dailyUse([("airkorea-provinces", [Self.arpltn: provinceRequests], day), ("airkorea-seoul", [Self.arpltn: 1], day),
                                   ("airkorea-jongno", [Self.arpltn: 1], day), ("airkorea-forecast", [Self.arpltn: 1], [4])],
                                  firstDay: Self.first, limits: Self.limits)[0]
        }
        #expect(use(provinceRequests: 18).callsPerDay == 484 && use(provinceRequests: 18).standing == .nearLimit)
        #expect(use(provinceRequests: 1).callsPerDay == 76 && use(provinceRequests: 1).standing == .fits)
        #expect(use(provinceRequests: 1).share == 76.0 / 500)
        let unlimited = QuotaPlanner.dailyUse([("p", [Self.arpltn: 3], [24])], firstDay: Self.first, limits: QuotaLimits(perSource: [:]))[0]
        #expect(unlimited.standing == .unlimited && unlimited.share == nil && unlimited.callsPerDay == 72)
    }
}
