import Domain
import Foundation

// MARK: - What a quota is counted against

/// What one daily call quota is counted against: an API of a feed, called with one key.
///
/// data.go.kr counts calls per service (API) and key per day (a development key allows 500
/// calls a day per API), so two operations of the same service share a count, while the
/// station service (`MsrstnInfoInqireSvc`) and the measurement service (`ArpltnInforInqireSvc`)
/// are counted apart. The key itself is never part of a scope: it is named by its environment
/// variable and told apart from other keys by a one-way fingerprint.
public struct QuotaScope: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Feed name (`airkorea`).
    public var source: String
    /// The API the operation belongs to (`ArpltnInforInqireSvc`).
    public var api: String
    /// The environment variable holding the key (`AIRKOREA_SERVICE_KEY`).
    public var credentialVariable: String
    /// A short one-way hash of the key (never the key), so a new key starts a new count.
    public var keyFingerprint: String

    public init(source: String, api: String, credentialVariable: String, keyFingerprint: String) {
        self.source = source; self.api = api; self.credentialVariable = credentialVariable; self.keyFingerprint = keyFingerprint
    }

    /// The scope of `request` sent with the key fingerprinted as `keyFingerprint`; nil when the
    /// request needs no key (nothing to count against).
    public init?(request: FeedRequest, keyFingerprint: String) {
        guard let credential = request.credential else { return nil }
        self.init(source: request.source, api: Self.api(of: request), credentialVariable: credential.environmentVariable,
                  keyFingerprint: keyFingerprint)
    }

    /// The API a request belongs to: the path segment before the operation
    /// (`…/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty` → `ArpltnInforInqireSvc`), else the operation.
    public static func api(of request: FeedRequest) -> String {
        let parts = request.baseURL.path.split(separator: "/").map(String.init)
        if parts.count >= 2, parts.last == request.operation { return parts[parts.count - 2] }
        return request.operation
    }

    public static func < (a: QuotaScope, b: QuotaScope) -> Bool {
        (a.source, a.api, a.credentialVariable, a.keyFingerprint) < (b.source, b.api, b.credentialVariable, b.keyFingerprint)
    }

    /// `AIRKOREA_SERVICE_KEY on ArpltnInforInqireSvc`.
    public var description: String { "\(credentialVariable) on \(api)" }
}

/// The day a quota is counted in: the calendar day in Asia/Seoul (data.go.kr resets at midnight KST).
public func quotaDay(_ instant: Date) -> LocalDate { HourSlot(containing: instant).date }

// MARK: - Limits

/// Calls allowed per day, per API and key, by feed.
///
/// Defaults: what each feed declares (`Feed.dailyCallLimit`; AirKorea 500, a data.go.kr
/// development key); a feed declaring none is not limited.
/// Override with `FEEDLINE_QUOTA_<FEED>` (`FEEDLINE_QUOTA_AIRKOREA=10000` for an operating key,
/// `none` for no limit, `0` to allow no calls at all).
public struct QuotaLimits: Sendable, Equatable {
    /// Daily calls per API and key, by feed name; a feed absent here has no limit.
    public var perSource: [String: Int]

    public init(perSource: [String: Int]) { self.perSource = perSource }

    /// The limits the feeds declare.
    public init(feeds: [any Feed]) {
        var limits: [String: Int] = [:]
        for feed in feeds { if let limit = feed.dailyCallLimit { limits[feed.source] = limit } }
        self.init(perSource: limits)
    }

    /// The daily limit of `source`, or nil for none.
    public func limit(for source: String) -> Int? { perSource[source] }

    /// `FEEDLINE_QUOTA_AIRKOREA` for `airkorea`: upper case, other characters as `_`.
    public static func variableName(for source: String) -> String {
        "FEEDLINE_QUOTA_" + String(source.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// The limits of `feeds` from the environment over what the feeds declare. Throws a sentence
    /// naming the variable when a value is neither a whole number ≥ 0 nor `none`.
    public static func fromEnvironment(_ variables: [String: String], feeds: [any Feed]) throws -> QuotaLimits {
        var limits = QuotaLimits(feeds: feeds)
        for source in feeds.map(\.source) {
            let name = variableName(for: source)
            guard let raw = variables[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { continue }
            if ["none", "unlimited", "off"].contains(raw.lowercased()) {
                limits.perSource[source] = nil
            } else if let n = Int(raw), n >= 0 {
                limits.perSource[source] = n
            } else {
                throw QuotaConfigurationError(message: "\(name) must be a whole number of calls per day (or none), not '\(raw)'.")
            }
        }
        return limits
    }
}

/// A quota setting in the environment is not usable.
public struct QuotaConfigurationError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

// MARK: - The ledger port

/// Calls counted per scope and KST day, kept in the database so that every run, process and
/// host writing to it shares one count. Implemented by Storage.
public protocol QuotaLedger: Sendable {
    /// Calls counted for `scope` on `day`.
    func callsMade(_ scope: QuotaScope, on day: LocalDate) throws -> Int
    /// Counts one call, atomically, unless `limit` calls were already counted: returns false
    /// (and counts nothing) when the limit is reached. `limit` nil: always counts.
    func reserveCall(_ scope: QuotaScope, on day: LocalDate, limit: Int?) throws -> Bool
    /// Records that the API itself said the quota is used up: the count is raised to `limit`.
    func markExhausted(_ scope: QuotaScope, on day: LocalDate, limit: Int) throws
}

// MARK: - Planning

/// The quota position of one scope for a planned run.
public struct QuotaCheck: Sendable, Equatable {
    public var scope: QuotaScope
    public var day: LocalDate
    /// Calls allowed per day, nil for no limit.
    public var limit: Int?
    /// Calls already counted today.
    public var used: Int
    /// Calls the plan needs at least (every first page; further pages are not known in advance).
    public var minimumCalls: Int

    public init(scope: QuotaScope, day: LocalDate, limit: Int?, used: Int, minimumCalls: Int) {
        self.scope = scope; self.day = day; self.limit = limit; self.used = used; self.minimumCalls = minimumCalls
    }

    /// Calls left today (nil: no limit).
    public var remaining: Int? { limit.map { max(0, $0 - used) } }

    /// Whether the minimum cost fits in what is left.
    public var fits: Bool { remaining.map { minimumCalls <= $0 } ?? true }

    /// `AIRKOREA_SERVICE_KEY on ArpltnInforInqireSvc (2024-03-06 KST): needs at least 18 calls; 490 of 500 used, 10 left`.
    public var sentence: String {
        var text = "\(scope) (\(day) KST): needs at least \(minimumCalls) call\(minimumCalls == 1 ? "" : "s")"
        if let limit, let remaining {
            text += "; \(used) of \(limit) used today, \(remaining) left"
        } else {
            text += "; \(used) used today, no limit set"
        }
        return text
    }
}

/// Pure quota arithmetic: the minimum cost of a set of requests and whether it fits.
public enum QuotaPlanner {
    /// Each first-page request costs at least one call (paging stops at a short page, so the
    /// real cost is known only while fetching). Requests without a scope (no key) cost nothing.
    public static func minimumCalls(_ requests: [FeedRequest], scope: (FeedRequest) -> QuotaScope?) -> [QuotaScope: Int] {
        var calls: [QuotaScope: Int] = [:]
        for request in requests {
            guard let s = scope(request) else { continue }
            calls[s, default: 0] += 1
        }
        return calls
    }

    /// One check per scope, sorted by scope.
    public static func check(_ minimum: [QuotaScope: Int], used: [QuotaScope: Int], limits: QuotaLimits, day: LocalDate) -> [QuotaCheck] {
        minimum.keys.sorted().map { scope in
            QuotaCheck(scope: scope, day: day, limit: limits.limit(for: scope.source), used: used[scope] ?? 0,
                       minimumCalls: minimum[scope] ?? 0)
        }
    }

    /// The error for a call refused because feedline's own count reached the limit: transient
    /// (a run after midnight KST will work) and exhausting the daily quota, like the API's own
    /// answer, so it is not retried today.
    public static func exhaustedError(_ scope: QuotaScope, day: LocalDate, limit: Int, request: FeedRequest) -> FeedError {
        FeedError(.quotaExhausted, .transient,
                  "Not calling \(request.operation): feedline has counted \(limit) of the \(limit) calls a day allowed for \(scope) "
                      + "on \(day) (KST); the quota resets at midnight KST (set \(QuotaLimits.variableName(for: scope.source)) if the key allows more).",
                  context: request.displayURL, exhaustsDailyQuota: true)
    }
}

// MARK: - A day under the schedules

/// One pipeline's calls against one daily quota on one day: the calls a run makes at least,
/// times the runs its schedule fires that day.
public struct ScheduledCalls: Sendable, Equatable {
    public var pipeline: String
    /// Calls one run makes at least (every first page, `QuotaPlanner.minimumCalls`).
    public var callsPerRun: Int
    /// Runs the schedule fires in the quota day.
    public var runsPerDay: Int

    public init(pipeline: String, callsPerRun: Int, runsPerDay: Int) {
        self.pipeline = pipeline; self.callsPerRun = callsPerRun; self.runsPerDay = runsPerDay
    }

    /// `callsPerRun × runsPerDay`.
    public var callsPerDay: Int { callsPerRun * runsPerDay }
}

/// What the schedules spend of one daily quota on their busiest day.
public struct DailyQuotaUse: Sendable, Equatable {
    /// How the day's calls stand against the limit.
    public enum Standing: String, Sendable, Equatable {
        /// No limit is set for the scope.
        case unlimited
        /// At most `QuotaPlanner.nearLimitShare` of the limit.
        case fits
        /// Within the limit, but above `QuotaPlanner.nearLimitShare` of it: little room for
        /// retries, backfills or runs by hand.
        case nearLimit
        /// More than the limit: some scheduled runs would be refused.
        case exceeds
    }

    public var scope: QuotaScope
    /// Calls allowed a day, nil for no limit.
    public var limit: Int?
    /// The busiest quota day (KST) of the period looked at.
    public var day: LocalDate
    /// Each pipeline's calls that day, by pipeline name (pipelines with no run that day left out).
    public var pipelines: [ScheduledCalls]

    public init(scope: QuotaScope, limit: Int?, day: LocalDate, pipelines: [ScheduledCalls]) {
        self.scope = scope; self.limit = limit; self.day = day; self.pipelines = pipelines
    }

    /// Calls the schedules make that day, at least.
    public var callsPerDay: Int { pipelines.reduce(0) { $0 + $1.callsPerDay } }

    /// `callsPerDay ÷ limit`; nil without a limit.
    public var share: Double? {
        guard let limit else { return nil }
        return limit == 0 ? (callsPerDay == 0 ? 0 : .infinity) : Double(callsPerDay) / Double(limit)
    }

    public var standing: Standing {
        guard let limit, let share else { return .unlimited }
        if callsPerDay > limit { return .exceeds }
        return share > QuotaPlanner.nearLimitShare ? .nearLimit : .fits
    }
}

extension QuotaPlanner {
    /// Above this share of a daily quota, the schedules leave too little room (retries after a
    /// failure, backfills, runs by hand) and are reported as near the limit.
    public static let nearLimitShare = 0.8

    /// Days a schedule is looked at from the first: a year, so that weekly, monthly and yearly
    /// runs all meet on their busiest day.
    public static let scheduleDays = 366

    /// Runs of `schedule` in each quota day (KST) from `firstDay`, `days` of them.
    public static func runsPerQuotaDay(_ schedule: CronSchedule, from firstDay: LocalDate, days: Int) -> [Int] {
        guard days > 0, let start = HourSlot(date: firstDay, hour: 0)?.start,
              let end = HourSlot(date: firstDay.adding(days: days), hour: 0)?.start else { return [] }
        var runs = [Int](repeating: 0, count: days)
        for time in schedule.fireTimes(from: start, before: end) {
            let index = quotaDay(time).daysSinceEpoch - firstDay.daysSinceEpoch
            if runs.indices.contains(index) { runs[index] += 1 }
        }
        return runs
    }

    /// Per scope, the busiest quota day of `pipelines` under their schedules: on each day, every
    /// pipeline's minimum calls a run times its runs that day, summed per scope; the day with the
    /// most calls (the earliest of equals) is kept. `runsPerDay[i]` is a pipeline's runs on
    /// `firstDay + i`. Sorted by scope.
    public static func dailyUse(_ pipelines: [(name: String, callsPerRun: [QuotaScope: Int], runsPerDay: [Int])],
                                firstDay: LocalDate, limits: QuotaLimits) -> [DailyQuotaUse] {
        let scopes = Set(pipelines.flatMap(\.callsPerRun.keys)).sorted()
        let days = pipelines.map(\.runsPerDay.count).max() ?? 0
        return scopes.map { scope in
            let sharing = pipelines.filter { ($0.callsPerRun[scope] ?? 0) > 0 }
            func calls(on day: Int) -> Int {
                sharing.reduce(0) { $0 + $1.callsPerRun[scope]! * (day < $1.runsPerDay.count ? $1.runsPerDay[day] : 0) }
            }
            var busiest = 0, most = -1
            for day in 0..<Swift.max(days, 1) {
                let total = calls(on: day)
                if total > most { (busiest, most) = (day, total) }
            }
            let shares = sharing.compactMap { p -> ScheduledCalls? in
                let runs = busiest < p.runsPerDay.count ? p.runsPerDay[busiest] : 0
                return runs > 0 ? ScheduledCalls(pipeline: p.name, callsPerRun: p.callsPerRun[scope]!, runsPerDay: runs) : nil
            }.sorted { $0.pipeline < $1.pipeline }
            return DailyQuotaUse(scope: scope, limit: limits.limit(for: scope.source), day: firstDay.adding(days: busiest), pipelines: shares)
        }
    }
}
