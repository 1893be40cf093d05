import Domain
import Foundation

/// How far back AirKorea's realtime-by-station operation (`getMsrstnAcctoRltmMesureDnsty`)
/// reaches, by its `dataTerm` parameter.
///
/// The API documents `DAILY` as one day, `MONTH` as one month and `3MONTH` as three months back
/// from the newest hour. The reaches below are deliberately conservative (23 hours, 28 days,
/// 88 days), so a planned request really covers the hours it is chosen for; whatever the API
/// still does not return is reported as still missing.
public enum BackfillDataTerm: String, CaseIterable, Sendable, Comparable {
    case daily = "DAILY"
    case month = "MONTH"
    case threeMonths = "3MONTH"

    /// Hours back from the newest complete hour (that hour included) a request is relied on to cover.
    public var reachHours: Int {
        switch self {
        case .daily: 23
        case .month: 28 * 24
        case .threeMonths: 88 * 24
        }
    }

    /// The most rows one station's request can return (for the call estimate).
    public var maxRows: Int {
        switch self {
        case .daily: 24
        case .month: 31 * 24
        case .threeMonths: 92 * 24
        }
    }

    public static func < (a: BackfillDataTerm, b: BackfillDataTerm) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The missing hours of one station in the backfill range.
public struct StationGap: Sendable, Equatable {
    public var station: String
    /// Missing hours, oldest first.
    public var missing: [HourSlot]

    public init(station: String, missing: [HourSlot]) {
        self.station = station
        self.missing = missing
    }
}

/// One station's planned request.
public struct BackfillFetch: Sendable, Equatable {
    public var station: String
    /// The smallest `dataTerm` reaching the station's oldest reachable missing hour.
    public var dataTerm: BackfillDataTerm
    /// Calls the request is expected to cost (pages at `pageSize` rows, the final short page included).
    public var estimatedCalls: Int
    /// The missing hours it should fill.
    public var missing: [HourSlot]
}

/// What a backfill will do: the pure core's decision, carried out by `Console.backfill`.
public struct BackfillPlan: Sendable, Equatable {
    /// Hours expected per station: from `from` 00h KST to `through` 23h KST, but not past the
    /// newest complete hour.
    public var expected: [HourSlot]
    /// Every station with missing hours (all of them, reachable or not).
    public var gaps: [StationGap]
    /// Requests to make, within the quota.
    public var fetches: [BackfillFetch]
    /// Requests that would have been made but do not fit in what is left of today's quota.
    public var skippedForQuota: [BackfillFetch]
    /// Missing hours older than the longest `dataTerm` reaches, by station: no request can fill them.
    public var unreachable: [String: [HourSlot]]
    /// The newest complete hour at planning time.
    public var newest: HourSlot

    /// Calls the planned requests are expected to cost.
    public var estimatedCalls: Int { fetches.reduce(0) { $0 + $1.estimatedCalls } }

    /// Planned requests grouped by `dataTerm` (one run each), smallest term first, stations in plan order.
    public var groups: [(dataTerm: BackfillDataTerm, stations: [String])] {
        BackfillDataTerm.allCases.compactMap { term in
            let stations = fetches.filter { $0.dataTerm == term }.map(\.station)
            return stations.isEmpty ? nil : (term, stations)
        }
    }
}

/// Pure backfill planning: which station-hours are missing, which `dataTerm` reaches them, and
/// what fits in the quota. No clock, no database: `now` and the hours present come in.
public enum BackfillPlanner {
    /// The newest hour whose average is complete at `now` (the one that ended last).
    public static func newestCompleteHour(at now: Date) -> HourSlot {
        HourSlot(containing: now.addingTimeInterval(-3600))
    }

    /// Every hour from `from` 00h to `through` 23h KST that has ended by `now`.
    public static func expectedSlots(from: LocalDate, through: LocalDate, now: Date) -> [HourSlot] {
        guard from <= through else { return [] }
        let first = index(HourSlot(date: from, hour: 0)!)
        let last = min(index(HourSlot(date: through, hour: 23)!), index(newestCompleteHour(at: now)))
        guard first <= last else { return [] }
        return (first...last).map(slot(at:))
    }

    /// The slots of `expected` whose bit is not set in `present` (bit h of a day's mask = hour h).
    public static func missing(_ expected: [HourSlot], present: [LocalDate: UInt32]) -> [HourSlot] {
        expected.filter { slot in (present[slot.date] ?? 0) & (UInt32(1) << UInt32(slot.hour)) == 0 }
    }

    /// The smallest term whose reach from `newest` includes `earliest`, or nil if none does.
    public static func dataTerm(reaching earliest: HourSlot, newest: HourSlot) -> BackfillDataTerm? {
        let back = index(newest) - index(earliest) + 1
        return BackfillDataTerm.allCases.first { back <= $0.reachHours }
    }

    /// Calls one station's request costs at `pageSize` rows a page: pages are followed until a
    /// short page, so a full last page costs one more (empty) call.
    public static func estimatedCalls(_ term: BackfillDataTerm, pageSize: Int) -> Int {
        term.maxRows / max(1, pageSize) + 1
    }

    /// The most days a backfill range may span.
    ///
    /// AirKorea's realtime-by-station operation keeps about three months (`3MONTH`); hours older
    /// than that are reported as missing, never fetched. A year leaves room to ask which hours of
    /// a longer stretch are missing, while bounding the plan: at most 366 × 24 hours per station
    /// (a 200-year range was 1.75 million hours each).
    public static let maximumDays = 366

    /// Why `from`…`through` cannot be backfilled, or nil when it can: it must span at most
    /// `maximumDays` days.
    public static func rangeProblem(from: LocalDate, through: LocalDate) -> String? {
        guard from <= through else { return "--from (\(from)) must not be after --to (\(through))." }
        let days = through.daysSinceEpoch - from.daysSinceEpoch + 1
        guard days <= maximumDays else {
            return "--from \(from) --to \(through) spans \(days) days; a backfill spans at most \(maximumDays) "
                + "(AirKorea keeps about three months of realtime-by-station data; older hours can only be reported as missing)."
        }
        return nil
    }

    /// Plans a backfill of `stations` over `from`…`through` (KST dates).
    /// - Parameters:
    ///   - present: hours present per station and day (from `measurement_completeness`).
    ///   - remainingCalls: calls left today for the API and key (nil: no limit); stations are
    ///     planned in the order given while their estimated cost fits.
    public static func plan(stations: [String], from: LocalDate, through: LocalDate, now: Date,
                            present: [String: [LocalDate: UInt32]], pageSize: Int, remainingCalls: Int?) -> BackfillPlan {
        let expected = expectedSlots(from: from, through: through, now: now)
        let newest = newestCompleteHour(at: now)
        var plan = BackfillPlan(expected: expected, gaps: [], fetches: [], skippedForQuota: [], unreachable: [:], newest: newest)
        var budget = remainingCalls
        var seen = Set<String>()
        for station in stations where seen.insert(station).inserted {
            let missing = missing(expected, present: present[station] ?? [:])
            guard !missing.isEmpty else { continue }
            plan.gaps.append(StationGap(station: station, missing: missing))
            let longest = BackfillDataTerm.allCases.last!
            let reachable = missing.filter { index(newest) - index($0) + 1 <= longest.reachHours }
            let beyond = missing.filter { index(newest) - index($0) + 1 > longest.reachHours }
            if !beyond.isEmpty { plan.unreachable[station] = beyond }
            guard let earliest = reachable.first, let term = dataTerm(reaching: earliest, newest: newest) else { continue }
            let fetch = BackfillFetch(station: station, dataTerm: term, estimatedCalls: estimatedCalls(term, pageSize: pageSize),
                                      missing: reachable)
            if let left = budget {
                guard fetch.estimatedCalls <= left else { plan.skippedForQuota.append(fetch); continue }
                budget = left - fetch.estimatedCalls
            }
            plan.fetches.append(fetch)
        }
        return plan
    }

    // MARK: - Hour arithmetic

    /// Hours since 1970-01-01 00h KST.
    static func index(_ slot: HourSlot) -> Int { slot.date.daysSinceEpoch * 24 + slot.hour }

    static func slot(at index: Int) -> HourSlot {
        let days = index >= 0 ? index / 24 : (index - 23) / 24
        return HourSlot(date: LocalDate(daysSinceEpoch: days), hour: index - days * 24)!
    }

    /// `2024-03-01 00h–2024-03-02 15h KST, 2024-03-04 10h KST`: consecutive hours as ranges,
    /// at most `limit` ranges, then how many more.
    public static func describe(_ slots: [HourSlot], limit: Int = 6) -> String {
        guard !slots.isEmpty else { return "none" }
        var ranges: [(HourSlot, HourSlot)] = []
        for slot in slots.sorted() {
            if let last = ranges.last, index(last.1) + 1 == index(slot) {
                ranges[ranges.count - 1].1 = slot
            } else {
                ranges.append((slot, slot))
            }
        }
        func text(_ r: (HourSlot, HourSlot)) -> String {
            if r.0 == r.1 { return "\(r.0.date) \(pad2(r.0.hour))h" }
            if r.0.date == r.1.date { return "\(r.0.date) \(pad2(r.0.hour))h–\(pad2(r.1.hour))h" }
            return "\(r.0.date) \(pad2(r.0.hour))h–\(r.1.date) \(pad2(r.1.hour))h"
        }
        var out = ranges.prefix(limit).map(text).joined(separator: ", ")
        if ranges.count > limit { out += ", and \(ranges.count - limit) more range\(ranges.count - limit == 1 ? "" : "s")" }
        return out + " KST"
    }

    private static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
}
