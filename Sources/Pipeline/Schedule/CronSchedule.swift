import Domain
import Foundation

/// A cron expression read in one time zone: the times a pipeline is due.
///
/// `nextFireTime(after:)` and `previousFireTime(atOrBefore:)` are pure functions of the
/// expression, the zone's rules (tzdata) and the instant given.
///
/// ## Daylight saving time (as Vixie cron and cronie do it)
///
/// - **Spring forward** (a wall-clock hour that never happens): a *fixed-time* job (neither the
///   minute nor the hour field starts with `*`, e.g. `30 2 * * *`) whose time falls in the gap
///   fires once, at the first instant after the gap (03:00 when 02:00 → 03:00). Several skipped
///   times coalesce into that one firing. *Interval* jobs (`*/15 * * * *`, `0 * * * *`) simply
///   have no runs in the gap.
/// - **Fall back** (a wall-clock hour that happens twice): a fixed-time job fires once, at the
///   first occurrence. Interval jobs follow the clock and fire in both passes, so an hourly job
///   still runs every real hour.
///
/// Zones without daylight saving (Asia/Seoul, the default) have no gaps or repeats today.
public struct CronSchedule: Sendable, Hashable, CustomStringConvertible {
    public let expression: CronExpression
    public let timeZone: TimeZone

    /// Zone used when a pipeline names none.
    public static let defaultTimeZoneIdentifier = "Asia/Seoul"

    public init(expression: CronExpression, timeZone: TimeZone) {
        self.expression = expression
        self.timeZone = timeZone
    }

    /// Parses `expression` for the zone named `timeZone` (an IANA identifier).
    public init(_ expression: String, timeZone identifier: String = CronSchedule.defaultTimeZoneIdentifier) throws(CronParseError) {
        guard let zone = TimeZone(identifier: identifier) else {
            throw CronParseError(field: nil, token: identifier, reason: "is not a known time zone")
        }
        self.init(expression: try CronExpression(parsing: expression), timeZone: zone)
    }

    public var description: String { "\(expression.text) (\(timeZone.identifier))" }

    /// The first fire time strictly after `instant`, or nil if there is none in 400 years.
    public func nextFireTime(after instant: Date) -> Date? {
        let t = Self.seconds(instant)
        let startDay = Self.floorDiv(t + offset(at: t), 86400) - 1
        var day = startDay
        while day <= startDay + Self.searchDays {
            if let found = firstFire(onLocalDay: day, after: t) {
                // A repeated hour across midnight can put the next day's first run earlier.
                let neighbour = firstFire(onLocalDay: day + 1, after: t)
                return Date(timeIntervalSince1970: TimeInterval(min(found, neighbour ?? found)))
            }
            day += 1
        }
        return nil
    }

    /// The last fire time at or before `instant`, or nil if there is none in 400 years.
    public func previousFireTime(atOrBefore instant: Date) -> Date? {
        let t = Self.seconds(instant)
        let startDay = Self.floorDiv(t + offset(at: t), 86400) + 1
        var day = startDay
        while day >= startDay - Self.searchDays {
            if let found = lastFire(onLocalDay: day, atOrBefore: t) {
                let neighbour = lastFire(onLocalDay: day - 1, atOrBefore: t)
                return Date(timeIntervalSince1970: TimeInterval(max(found, neighbour ?? found)))
            }
            day -= 1
        }
        return nil
    }

    /// Fire times in `(start, end]`, oldest first: the newest `limit` of them, and whether
    /// older ones were left out.
    public func fireTimes(after start: Date, through end: Date, newest limit: Int) -> (times: [Date], truncated: Bool) {
        var kept: [Date] = []
        var cursor = end
        while kept.count < limit, let previous = previousFireTime(atOrBefore: cursor), previous > start {
            kept.append(previous)
            cursor = previous.addingTimeInterval(-1)
        }
        let truncated = kept.count == limit && (previousFireTime(atOrBefore: cursor).map { $0 > start } ?? false)
        return (kept.reversed(), truncated)
    }

    /// Every fire time in `[start, end)`, oldest first, found a local day at a time (so a year of
    /// an every-minute schedule costs a pass over its days, not a search per run).
    public func fireTimes(from start: Date, before end: Date) -> [Date] {
        let first = Self.seconds(start), last = Self.seconds(end)
        guard first < last else { return [] }
        // Wall-clock days reach up to a day either side of the instants they hold.
        let firstDay = Self.floorDiv(first + offset(at: first), 86400) - 1
        let lastDay = Self.floorDiv(last + offset(at: last), 86400) + 1
        var times: [Int] = []
        for day in firstDay...lastDay {
            times += fireInstants(onLocalDay: day).filter { $0 >= first && $0 < last }
        }
        return Array(Set(times)).sorted().map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// The shortest gap between consecutive fire times around `instant` (for staleness checks).
    public func typicalInterval(around instant: Date) -> TimeInterval? {
        guard let a = nextFireTime(after: instant), let b = nextFireTime(after: a) else { return nil }
        if let c = nextFireTime(after: b) { return min(b.timeIntervalSince(a), c.timeIntervalSince(b)) }
        return b.timeIntervalSince(a)
    }

    // MARK: - Wall clock ↔ instants

    /// Days searched before giving up (400 Gregorian years: every date pattern recurs).
    static let searchDays = 146_097

    /// Whether local day `day` (days since 1970-01-01 in the zone) is one the expression runs on.
    func dayMatches(_ day: Int) -> Bool {
        let date = LocalDate(daysSinceEpoch: day)
        let weekday = ((day % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday
        return expression.matchesDay(month: date.month, day: date.day, weekday: weekday)
    }

    /// The zone's offset through local day `day` when no transition comes near it, else nil.
    func uniformOffset(onLocalDay day: Int) -> Int? {
        let midnight = day * 86400
        // Instants of this day's wall times lie within [midnight - 14 h, midnight + 36 h).
        let before = offset(at: midnight - 15 * 3600), after = offset(at: midnight + 86400 + 13 * 3600)
        return before == after ? before : nil
    }

    /// The first fire instant of local day `day` after `t` (Unix seconds).
    func firstFire(onLocalDay day: Int, after t: Int) -> Int? {
        guard dayMatches(day) else { return nil }
        guard let offset = uniformOffset(onLocalDay: day) else { return fireInstants(onLocalDay: day).first { $0 > t } }
        let target = t - (day * 86400 - offset)  // seconds into the day that must be exceeded
        let lastMinute = expression.minute.values.last! * 60
        for h in expression.hour.values where h * 3600 + lastMinute > target {
            for m in expression.minute.values where h * 3600 + m * 60 > target {
                return day * 86400 - offset + h * 3600 + m * 60
            }
        }
        return nil
    }

    /// The last fire instant of local day `day` at or before `t` (Unix seconds).
    func lastFire(onLocalDay day: Int, atOrBefore t: Int) -> Int? {
        guard dayMatches(day) else { return nil }
        guard let offset = uniformOffset(onLocalDay: day) else { return fireInstants(onLocalDay: day).last { $0 <= t } }
        let target = t - (day * 86400 - offset)
        let firstMinute = expression.minute.values.first! * 60
        for h in expression.hour.values.reversed() where h * 3600 + firstMinute <= target {
            for m in expression.minute.values.reversed() where h * 3600 + m * 60 <= target {
                return day * 86400 - offset + h * 3600 + m * 60
            }
        }
        return nil
    }

    /// Every fire instant (Unix seconds, ascending) whose wall-clock time falls on local day
    /// `day`, applying the DST rules above.
    func fireInstants(onLocalDay day: Int) -> [Int] {
        guard dayMatches(day) else { return [] }
        let midnight = day * 86400
        var out: [Int] = []
        if let offset = uniformOffset(onLocalDay: day) {
            for h in expression.hour.values { for m in expression.minute.values { out.append(midnight + h * 3600 + m * 60 - offset) } }
            return out
        }
        let fixed = expression.isFixedTime
        for h in expression.hour.values {
            for m in expression.minute.values {
                let wall = midnight + h * 3600 + m * 60
                let instants = resolve(wall: wall)
                switch instants.count {
                case 0: if fixed, let end = gapEnd(wall: wall) { out.append(end) }
                case 1: out.append(instants[0])
                default: if fixed { out.append(instants[0]) } else { out.append(contentsOf: instants) }
                }
            }
        }
        return Array(Set(out)).sorted()
    }

    /// The instants whose wall-clock time is `wall` (local seconds): none in a gap, two in a
    /// repeated hour, else one.
    func resolve(wall: Int) -> [Int] {
        let offsets = Set([offset(at: wall - 15 * 3600), offset(at: wall + 13 * 3600), offset(at: wall - offset(at: wall))])
        return offsets.map { wall - $0 }.filter { offset(at: $0) == wall - $0 }.sorted()
    }

    /// The first instant after the gap that swallowed `wall`: the transition itself.
    func gapEnd(wall: Int) -> Int? {
        let early = offset(at: wall - 15 * 3600), late = offset(at: wall + 13 * 3600)
        guard late > early else { return nil }
        // At wall - late the old offset still holds; at wall - early the new one already does.
        var low = wall - late, high = wall - early
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if offset(at: mid) == early { low = mid } else { high = mid }
        }
        return high
    }

    func offset(at seconds: Int) -> Int {
        timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func seconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970.rounded(.down)) }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
