import Foundation
import Pipeline
import PropertyBased
import Testing

/// `2024-03-10T07:00:00Z` → Date.
func utc(_ text: String) -> Date {
    let parts = text.dropLast().split(whereSeparator: { "-T:".contains($0) }).map { Int($0)! }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2],
                                              hour: parts[3], minute: parts[4], second: parts.count > 5 ? parts[5] : 0))!
}

func iso(_ date: Date?) -> String {
    guard let date else { return "nil" }
    let f = ISO8601DateFormatter()
    f.timeZone = TimeZone(identifier: "UTC")
    return f.string(from: date)
}

/// The first `count` fire times after `start`.
func fireTimes(_ schedule: CronSchedule, after start: Date, count: Int) -> [String] {
    var out: [String] = [], cursor = start
    while out.count < count, let next = schedule.nextFireTime(after: cursor) {
        out.append(iso(next)); cursor = next
    }
    return out
}

@Suite("Cron schedules: next fire time")
struct CronScheduleTests {
    @Test("the default zone is Asia/Seoul and the next fire time is strictly after the instant")
    func seoulDefault() throws {
        let s = try CronSchedule("0 9 * * *")
        #expect(s.timeZone.identifier == "Asia/Seoul")
        #expect(iso(s.nextFireTime(after: utc("2024-03-05T23:59:59Z"))) == "2024-03-06T00:00:00Z")  // 09:00 KST
        #expect(iso(s.nextFireTime(after: utc("2024-03-06T00:00:00Z"))) == "2024-03-07T00:00:00Z")
        #expect(iso(s.nextFireTime(after: utc("2024-03-06T00:00:00Z").addingTimeInterval(-0.5))) == "2024-03-06T00:00:00Z")
        #expect(iso(s.previousFireTime(atOrBefore: utc("2024-03-06T00:00:00Z"))) == "2024-03-06T00:00:00Z")
        #expect(iso(s.previousFireTime(atOrBefore: utc("2024-03-05T23:59:59Z"))) == "2024-03-05T00:00:00Z")
    }

    @Test("the pipelines' own schedules: hourly at :20 KST and Mondays 03:00 KST")
    func bundledSchedules() throws {
        let hourly = try CronSchedule("20 * * * *", timeZone: "Asia/Seoul")
        #expect(fireTimes(hourly, after: utc("2024-03-06T06:00:00Z"), count: 2) == ["2024-03-06T06:20:00Z", "2024-03-06T07:20:00Z"])
        let weekly = try CronSchedule("0 3 * * 1", timeZone: "Asia/Seoul")
        // 2024-03-11 is a Monday: 03:00 KST is Sunday 18:00 UTC.
        #expect(fireTimes(weekly, after: utc("2024-03-06T06:00:00Z"), count: 2) == ["2024-03-10T18:00:00Z", "2024-03-17T18:00:00Z"])
    }

    @Test("day-of-month and day-of-week restricted together fire on either (Friday the 13th rule)")
    func eitherDayRule() throws {
        let s = try CronSchedule("0 0 13 * FRI", timeZone: "UTC")
        #expect(fireTimes(s, after: utc("2024-09-01T00:00:00Z"), count: 7).map { String($0.prefix(10)) } ==
                ["2024-09-06", "2024-09-13", "2024-09-20", "2024-09-27", "2024-10-04", "2024-10-11", "2024-10-13"])
        // A day-of-month starting with * means AND (Vixie cron): odd days that are Mondays.
        let both = try CronSchedule("0 0 */2 * MON", timeZone: "UTC")
        #expect(fireTimes(both, after: utc("2024-09-01T00:00:00Z"), count: 4).map { String($0.prefix(10)) } ==
                ["2024-09-09", "2024-09-23", "2024-10-07", "2024-10-21"])
    }

    @Test("names, leap days and macros")
    func namesLeapDaysMacros() throws {
        let weekdaysQ1 = try CronSchedule("0 9 * JAN-MAR mon-fri", timeZone: "UTC")
        #expect(iso(weekdaysQ1.nextFireTime(after: utc("2024-03-29T10:00:00Z"))) == "2025-01-01T09:00:00Z")
        let leap = try CronSchedule("0 0 29 2 *", timeZone: "UTC")
        #expect(iso(leap.nextFireTime(after: utc("2024-03-01T00:00:00Z"))) == "2028-02-29T00:00:00Z")
        #expect(iso(leap.previousFireTime(atOrBefore: utc("2024-03-01T00:00:00Z"))) == "2024-02-29T00:00:00Z")
        let weekly = try CronSchedule("@weekly", timeZone: "UTC")
        #expect(iso(weekly.nextFireTime(after: utc("2024-09-04T12:00:00Z"))) == "2024-09-08T00:00:00Z")  // Sunday
        #expect(try CronSchedule("0 0 * * 7", timeZone: "UTC").nextFireTime(after: utc("2024-09-04T12:00:00Z")) ==
                weekly.nextFireTime(after: utc("2024-09-04T12:00:00Z")))
        #expect(throws: CronParseError.self) { try CronSchedule("0 0 * * *", timeZone: "Mars/Olympus_Mons") }
    }

    // MARK: - Daylight saving time

    @Test("spring forward (New York, 2024-03-10 02:00 → 03:00): a fixed time in the gap fires once at 03:00")
    func springForwardFixedTime() throws {
        let s = try CronSchedule("30 2 * * *", timeZone: "America/New_York")
        #expect(fireTimes(s, after: utc("2024-03-09T12:00:00Z"), count: 3) ==
                ["2024-03-10T07:00:00Z", "2024-03-11T06:30:00Z", "2024-03-12T06:30:00Z"])
        // Two times in the gap still fire once; the first real time after it fires as usual.
        let two = try CronSchedule("0,30 2,3 * * *", timeZone: "America/New_York")
        #expect(fireTimes(two, after: utc("2024-03-10T05:00:00Z"), count: 3) ==
                ["2024-03-10T07:00:00Z", "2024-03-10T07:30:00Z", "2024-03-11T06:00:00Z"])
    }

    @Test("spring forward: interval jobs have no runs in the gap")
    func springForwardIntervalJob() throws {
        let s = try CronSchedule("*/15 2 * * *", timeZone: "America/New_York")
        #expect(iso(s.nextFireTime(after: utc("2024-03-10T05:00:00Z"))) == "2024-03-11T06:00:00Z")
        let hourly = try CronSchedule("0 * * * *", timeZone: "America/New_York")
        #expect(fireTimes(hourly, after: utc("2024-03-10T06:30:00Z"), count: 2) == ["2024-03-10T07:00:00Z", "2024-03-10T08:00:00Z"])
    }

    @Test("fall back (New York, 2024-11-03 02:00 → 01:00): a fixed time in the repeated hour fires once")
    func fallBackFixedTime() throws {
        let s = try CronSchedule("30 1 * * *", timeZone: "America/New_York")
        #expect(fireTimes(s, after: utc("2024-11-03T04:00:00Z"), count: 2) == ["2024-11-03T05:30:00Z", "2024-11-04T06:30:00Z"])
        #expect(iso(s.previousFireTime(atOrBefore: utc("2024-11-03T07:00:00Z"))) == "2024-11-03T05:30:00Z")
    }

    @Test("fall back: interval jobs follow the clock through both passes of the hour")
    func fallBackIntervalJob() throws {
        let hourly = try CronSchedule("0 * * * *", timeZone: "America/New_York")
        #expect(fireTimes(hourly, after: utc("2024-11-03T04:30:00Z"), count: 3) ==
                ["2024-11-03T05:00:00Z", "2024-11-03T06:00:00Z", "2024-11-03T07:00:00Z"])
        let halfHours = try CronSchedule("*/30 1 * * *", timeZone: "America/New_York")
        #expect(fireTimes(halfHours, after: utc("2024-11-03T04:00:00Z"), count: 5) ==
                ["2024-11-03T05:00:00Z", "2024-11-03T05:30:00Z", "2024-11-03T06:00:00Z", "2024-11-03T06:30:00Z", "2024-11-04T06:00:00Z"])
    }

    @Test("a half-hour shift (Lord Howe) and a skipped midnight (Santiago)")
    func unusualZones() throws {
        // 2024-10-06 02:00 +10:30 → 02:30 +11:00: 02:15 never happens; it fires at 02:30 (15:30Z).
        let lordHowe = try CronSchedule("15 2 * * *", timeZone: "Australia/Lord_Howe")
        #expect(iso(lordHowe.nextFireTime(after: utc("2024-10-05T12:00:00Z"))) == "2024-10-05T15:30:00Z")
        // 2024-09-08 00:00 -04 → 01:00 -03: @daily fires at 01:00 -03 (04:00Z) that day.
        let santiago = try CronSchedule("@daily", timeZone: "America/Santiago")
        #expect(fireTimes(santiago, after: utc("2024-09-07T00:00:00Z"), count: 3) ==
                ["2024-09-07T04:00:00Z", "2024-09-08T04:00:00Z", "2024-09-09T03:00:00Z"])
    }

    // MARK: - Properties

    static let zones = ["Asia/Seoul", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago", "UTC"]

    /// An instant in 2020–2030, half the time within three hours of a DST transition of `zone`.
    static let instants = Generator<(Date, String), Shrink.None<(Date, String)>> { rng in
        let zone = zones.randomElement(using: &rng)!
        let base = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 1_577_836_800...1_893_456_000, using: &rng)))
        if Bool.random(using: &rng), let transition = TimeZone(identifier: zone)!.nextDaylightSavingTimeTransition(after: base) {
            return (transition.addingTimeInterval(TimeInterval(Int.random(in: -3 * 3600...3 * 3600, using: &rng))), zone)
        }
        return (base, zone)
    }

    @Test("next fire time: strictly after t, a fire time itself, and no fire time skipped in between (2 days scanned)")
    func nextFireTimeProperties() throws {
        try seededPropertyCheck(count: 150, input: zip(CronGen.expression, Self.instants)) { generated, instant in
            try Self.checkNextFireTime(generated, zone: instant.1, after: instant.0)
        }
    }

    /// A DST transition of one of the zones that have them, a wall-clock minute inside the
    /// skipped or repeated interval, an expression aimed at it (fixed-time or interval), and an
    /// instant up to four hours before the transition.
    static let aimedAtTransitions = Generator<(GeneratedCron, String, Date), Shrink.None<(GeneratedCron, String, Date)>> { rng in
        let zoneName = ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago"].randomElement(using: &rng)!
        let zone = TimeZone(identifier: zoneName)!
        let base = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 1_577_836_800...1_893_456_000, using: &rng)))
        let transition = zone.nextDaylightSavingTimeTransition(after: base)!
        let u = transition.timeIntervalSince1970
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: u - 1)), after = zone.secondsFromGMT(for: transition)
        let low = u + TimeInterval(min(before, after)), high = u + TimeInterval(max(before, after))
        let wall = (Double(Int.random(in: Int(low / 60)..<Int(high / 60), using: &rng)) * 60)
        var utcCalendar = Calendar(identifier: .gregorian); utcCalendar.timeZone = TimeZone(identifier: "UTC")!
        let c = utcCalendar.dateComponents([.hour, .minute], from: Date(timeIntervalSince1970: wall))
        let (h, m) = (c.hour!, c.minute!)
        let step = [5, 10, 15, 30].randomElement(using: &rng)!
        let cron: GeneratedCron
        switch Int.random(in: 0...3, using: &rng) {
        case 0, 1:  // fixed time inside the interval, sometimes with a second time after it
            let hours: Set<Int> = Bool.random(using: &rng) ? [h] : [h, (h + 1) % 24]
            cron = GeneratedCron(text: "\(m) \(hours.sorted().map(String.init).joined(separator: ",")) * * *", minutes: [m], hours: hours,
                                 days: Set(1...31), months: Set(1...12), weekdays: Set(0...6),
                                 minuteStar: false, hourStar: false, dayStar: true, weekdayStar: true)
        case 2:  // interval minutes in that hour
            cron = GeneratedCron(text: "*/\(step) \(h) * * *", minutes: Set(stride(from: 0, through: 59, by: step)), hours: [h],
                                 days: Set(1...31), months: Set(1...12), weekdays: Set(0...6),
                                 minuteStar: true, hourStar: false, dayStar: true, weekdayStar: true)
        default:  // every hour at that minute
            cron = GeneratedCron(text: "\(m) * * * *", minutes: [m], hours: Set(0...23), days: Set(1...31), months: Set(1...12),
                                 weekdays: Set(0...6), minuteStar: false, hourStar: true, dayStar: true, weekdayStar: true)
        }
        let t = transition.addingTimeInterval(-TimeInterval(Int.random(in: 1...4 * 3600, using: &rng)))
        return (cron, zoneName, t)
    }

    @Test("the same properties for expressions aimed at the skipped or repeated hour of real DST transitions")
    func nextFireTimeAcrossTransitions() throws {
        try seededPropertyCheck(count: 150, input: Self.aimedAtTransitions) { cron, zone, t in
            try Self.checkNextFireTime(cron, zone: zone, after: t)
        }
    }

    /// next > t, next is a fire time, no fire time in (t, next) within two days, and
    /// `previousFireTime` agrees.
    static func checkNextFireTime(_ generated: GeneratedCron, zone zoneName: String, after t: Date) throws {
        let oracle = FireOracle(generated, zone: TimeZone(identifier: zoneName)!)
        let schedule = try CronSchedule(generated.text, timeZone: zoneName)
        guard let next = schedule.nextFireTime(after: t) else {
            Issue.record("no next fire time for \(generated) in \(zoneName) after \(iso(t))"); return
        }
        #expect(next > t, "\(generated) \(zoneName) t=\(iso(t))")
        #expect(next.timeIntervalSince1970.truncatingRemainder(dividingBy: 60) == 0)
        #expect(oracle.fires(at: next), "\(generated) \(zoneName): \(iso(next)) is not a fire time")
        // Every whole minute in (t, next) up to two days is not a fire time.
        var minute = (t.timeIntervalSince1970 / 60).rounded(.down) * 60 + 60
        let end = min(next.timeIntervalSince1970, t.timeIntervalSince1970 + 2 * 86400)
        while minute < end {
            let at = Date(timeIntervalSince1970: minute)
            if oracle.fires(at: at) {
                Issue.record("\(generated) in \(zoneName): \(iso(at)) fires but next after \(iso(t)) was \(iso(next))")
                break
            }
            minute += 60
        }
        // previous and next agree.
        #expect(schedule.previousFireTime(atOrBefore: next) == next)
        if let previous = schedule.previousFireTime(atOrBefore: next.addingTimeInterval(-1)) {
            #expect(previous <= t, "\(generated) \(zoneName): \(iso(previous)) lies between \(iso(t)) and \(iso(next))")
            #expect(oracle.fires(at: previous))
        }
    }
}

/// Decides whether a whole-minute instant is a fire time, straight from the rules, using
/// Foundation's calendar for wall-clock fields and the generated value sets (not the parser).
struct FireOracle {
    let cron: GeneratedCron
    let zone: TimeZone
    let calendar: Calendar
    let utcCalendar: Calendar

    init(_ cron: GeneratedCron, zone: TimeZone) {
        self.cron = cron
        self.zone = zone
        var c = Calendar(identifier: .gregorian); c.timeZone = zone; calendar = c
        var u = Calendar(identifier: .gregorian); u.timeZone = TimeZone(identifier: "UTC")!; utcCalendar = u
    }

    var fixed: Bool { !cron.minuteStar && !cron.hourStar }

    func wallMatches(_ c: DateComponents) -> Bool {
        guard cron.months.contains(c.month!), cron.hours.contains(c.hour!), cron.minutes.contains(c.minute!) else { return false }
        let dom = cron.days.contains(c.day!), dow = cron.weekdays.contains(c.weekday! - 1)
        return (cron.dayStar || cron.weekdayStar) ? (dom && dow) : (dom || dow)
    }

    func offset(_ seconds: TimeInterval) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)) }

    func fires(at instant: Date) -> Bool {
        let u = instant.timeIntervalSince1970
        let here = calendar.dateComponents([.month, .day, .weekday, .hour, .minute], from: instant)
        if wallMatches(here) {
            // Second pass of a repeated hour: the same wall time happened `k` seconds earlier.
            let k = offset(u - 3 * 3600) - offset(u)
            let secondPass = k > 0 && offset(u - TimeInterval(k)) == offset(u) + k
            if !(secondPass && fixed) { return true }
        }
        // First instant after a spring-forward gap: fixed-time jobs whose time was skipped.
        let before = offset(u - 1), after = offset(u)
        if fixed && after > before {
            var wall = u + TimeInterval(before)  // the first wall-clock second that never happened
            while wall < u + TimeInterval(after) {
                if wallMatches(utcCalendar.dateComponents([.month, .day, .weekday, .hour, .minute], from: Date(timeIntervalSince1970: wall))) {
                    return true
                }
                wall += 60
            }
        }
        return false
    }
}
