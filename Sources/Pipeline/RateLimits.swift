import Foundation

/// A limit a provider puts on calls with one key over a window: 60 a minute, 2,000 an hour,
/// 1,000,000 a month.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public enum Window: String, Sendable, Hashable {
        case minute, hour, day, month

        /// The window's length; a month counts as 30 days.
        public var seconds: TimeInterval {
            switch self {
            case .minute: 60
            case .hour: 3600
            case .day: 86_400
            case .month: 30 * 86_400
            }
        }
    }

    public var calls: Int
    public var window: Window

    public init(_ calls: Int, per window: Window) {
        self.calls = max(1, calls); self.window = window
    }

    /// Windows of an hour or less are paced call by call; longer ones are budgets that the
    /// dry run checks a schedule against (and the daily quota ledger counts).
    public var isPaced: Bool { window == .minute || window == .hour }

    public var description: String { "\(calls)/\(window.rawValue)" }
}

/// The pure core of client-side pacing: the time each next call may go so that no window of
/// any paced limit ever holds more calls than the limit allows, and any pause the provider
/// asked for is kept.
///
/// Calls go in the order they were reserved. For a limit of `n` calls a window `w`, call `k`
/// goes no earlier than call `k - n` plus `w`: then any half-open span of length `w` holds at
/// most `n` calls, whatever the window's start — a provider's fixed per-minute windows
/// included. Nothing here sleeps or reads a clock.
public struct RateSchedule: Sendable {
    public let limits: [RateLimit]
    /// The reserved times still inside the longest paced window, oldest first.
    public private(set) var sent: [Date] = []
    /// The provider asked for no call before this (`Retry-After`, a used-up window).
    public private(set) var pausedUntil: Date?

    public init(limits: [RateLimit], pausedUntil: Date? = nil) {
        self.limits = limits.filter(\.isPaced); self.pausedUntil = pausedUntil
    }

    /// Reserves the earliest time at or after `now` the next call may go, and records it.
    public mutating func reserve(now: Date) -> Date {
        var at = max(now, pausedUntil ?? now)
        if let last = sent.last { at = max(at, last) }
        for limit in limits where sent.count >= limit.calls {
            at = max(at, sent[sent.count - limit.calls].addingTimeInterval(limit.window.seconds))
        }
        sent.append(at)
        // Only the newest `calls` times of the largest limit are ever looked at again.
        let keep = limits.map(\.calls).max() ?? 0
        if sent.count > keep { sent.removeFirst(sent.count - keep) }
        return at
    }

    /// Holds every call until `until` (never shortens an earlier pause).
    public mutating func pause(until: Date) {
        pausedUntil = max(pausedUntil ?? until, until)
    }
}

/// What scheduled runs of one feed cost against its limits: the dry run's arithmetic.
public struct RateBudget: Sendable, Equatable {
    /// One limit, and the most calls the runs make in one of its windows.
    public struct Line: Sendable, Equatable {
        public var limit: RateLimit
        public var calls: Int
        public var fits: Bool { calls <= limit.calls }
    }

    /// One pipeline's share: calls a run (at least), runs a day and runs in 30 days.
    public struct Share: Sendable, Equatable {
        public var callsPerRun: Int
        public var runsPerDay: Int
        public var runsPerMonth: Int
        public init(callsPerRun: Int, runsPerDay: Int, runsPerMonth: Int) {
            self.callsPerRun = callsPerRun; self.runsPerDay = runsPerDay; self.runsPerMonth = runsPerMonth
        }
    }

    /// The calls of one run of every pipeline together.
    public var callsPerRun: Int
    /// How long those calls take when paced (0 when they fit in the first window of every
    /// paced limit): `n` calls at `c` a window `w` go in `(n - 1) / c` further windows.
    public var pacedDuration: TimeInterval
    public var lines: [Line]

    /// The budget of `shares` under `limits`. Paced windows (a minute, an hour) hold at most the
    /// limit by construction; a day and a month hold every run the schedules fire in them.
    public init(shares: [Share], limits: [RateLimit]) {
        let callsPerRun = shares.reduce(0) { $0 + $1.callsPerRun }
        self.callsPerRun = callsPerRun
        let perDay = shares.reduce(0) { $0 + $1.callsPerRun * $1.runsPerDay }
        let perMonth = shares.reduce(0) { $0 + $1.callsPerRun * $1.runsPerMonth }
        var longest: TimeInterval = 0
        lines = limits.map { limit in
            switch limit.window {
            case .minute, .hour:
                if callsPerRun > limit.calls {
                    longest = max(longest, Double((callsPerRun - 1) / limit.calls) * limit.window.seconds)
                }
                return Line(limit: limit, calls: min(callsPerRun, limit.calls))
            case .day: return Line(limit: limit, calls: perDay)
            case .month: return Line(limit: limit, calls: perMonth)
            }
        }
        pacedDuration = longest
    }

    public var fits: Bool { lines.allSatisfy(\.fits) }
}
