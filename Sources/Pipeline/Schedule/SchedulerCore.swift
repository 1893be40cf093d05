import Foundation

/// What a pipeline does about slots it missed while nothing was running (`catch_up:` in the
/// pipeline file).
public enum CatchUpPolicy: String, Sendable, CaseIterable {
    /// Run once, for the newest missed slot (the default).
    case latest
    /// Run once for every missed slot, oldest first (bounded by `SchedulerCore.maximumCatchUp`).
    case all
}

/// A pipeline the scheduler drives: its name, when it is due and how it catches up.
public struct ScheduledPipeline: Sendable, Hashable {
    public var name: String
    public var schedule: CronSchedule
    public var catchUp: CatchUpPolicy

    public init(name: String, schedule: CronSchedule, catchUp: CatchUpPolicy = .latest) {
        self.name = name; self.schedule = schedule; self.catchUp = catchUp
    }
}

/// The scheduler's pure core: given the pipelines, when each last started (from the run ledger)
/// and the time now, it decides what to run and how long to sleep. It never reads a clock,
/// sleeps or runs anything; the shell (`feedline schedule`) carries the decisions out.
///
/// For each pipeline it keeps a *cursor*: every slot at or before it has been handled. At start
/// the cursor is the pipeline's last start in the ledger, or the scheduler's start time for a
/// pipeline that never ran (a new pipeline waits for its first slot, as under cron).
/// `decide(now:)` returns the slots in (cursor, now] — one, the newest, under `catch_up: latest`;
/// each, oldest first, under `all` — and moves the cursor to `now`. Slots that pass while a run
/// is in hand are therefore caught up by the next decision, by the same policy.
public struct SchedulerCore: Sendable {
    /// One run to start now.
    public struct Due: Sendable, Hashable {
        public var pipeline: String
        /// The scheduled time this run is for.
        public var slot: Date
        /// Slots folded into this run (`latest`), 0 when it is the only one.
        public var skippedSlots: Int
        /// Older missed slots were left out because there were more than `maximumCatchUp` (`all`).
        public var truncated: Bool

        public init(pipeline: String, slot: Date, skippedSlots: Int = 0, truncated: Bool = false) {
            self.pipeline = pipeline; self.slot = slot; self.skippedSlots = skippedSlots; self.truncated = truncated
        }
    }

    /// What the shell should do next.
    public enum Decision: Sendable, Hashable {
        /// Start these runs now, in this order (oldest slot first), then ask again.
        case run([Due])
        /// Nothing is due: sleep until this instant (or a stop request), then ask again.
        case sleep(until: Date)
        /// No pipeline has a future fire time: wait for a stop request.
        case idle
    }

    /// One upcoming fire time.
    public struct Upcoming: Sendable, Hashable {
        public var pipeline: String
        public var at: Date
    }

    public let pipelines: [ScheduledPipeline]
    /// Most runs one `catch_up: all` pipeline is given after downtime.
    public let maximumCatchUp: Int
    /// Per pipeline: every slot at or before this instant has been handled.
    public private(set) var cursors: [String: Date]

    public init(pipelines: [ScheduledPipeline], lastStarts: [String: Date], now: Date, maximumCatchUp: Int = 100) {
        self.pipelines = pipelines
        self.maximumCatchUp = max(1, maximumCatchUp)
        self.cursors = Dictionary(pipelines.map { ($0.name, lastStarts[$0.name] ?? now) }, uniquingKeysWith: { a, _ in a })
    }

    /// Decides what to do at `now`, and records the runs it returns as handled.
    public mutating func decide(now: Date) -> Decision {
        var due: [Due] = []
        for pipeline in pipelines {
            let cursor = cursors[pipeline.name] ?? now
            guard cursor < now else { continue }
            switch pipeline.catchUp {
            case .latest:
                if let slot = pipeline.schedule.previousFireTime(atOrBefore: now), slot > cursor {
                    let (older, truncated) = pipeline.schedule.fireTimes(after: cursor, through: slot.addingTimeInterval(-1), newest: maximumCatchUp)
                    due.append(Due(pipeline: pipeline.name, slot: slot, skippedSlots: older.count, truncated: truncated))
                }
            case .all:
                let (slots, truncated) = pipeline.schedule.fireTimes(after: cursor, through: now, newest: maximumCatchUp)
                for (i, slot) in slots.enumerated() {
                    due.append(Due(pipeline: pipeline.name, slot: slot, truncated: truncated && i == 0))
                }
            }
            cursors[pipeline.name] = now
        }
        if !due.isEmpty {
            return .run(due.sorted { ($0.slot, $0.pipeline) < ($1.slot, $1.pipeline) })
        }
        guard let next = upcoming(after: now).first else { return .idle }
        return .sleep(until: next.at)
    }

    /// The next fire time of each pipeline after `instant` (or after its cursor, if later),
    /// soonest first: `nextRuns(after:)` of the design guide.
    public func upcoming(after instant: Date) -> [Upcoming] {
        pipelines.compactMap { p -> Upcoming? in
            let from = max(instant, cursors[p.name] ?? instant)
            return p.schedule.nextFireTime(after: from).map { Upcoming(pipeline: p.name, at: $0) }
        }.sorted { ($0.at, $0.pipeline) < ($1.at, $1.pipeline) }
    }
}
