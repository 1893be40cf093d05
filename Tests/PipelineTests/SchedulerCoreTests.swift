import Foundation
import Pipeline
import PropertyBased
import Testing

@Suite("Scheduler core: decisions from pipelines, last runs and now")
struct SchedulerCoreTests {
    func pipeline(_ name: String, _ cron: String, zone: String = "Asia/Seoul", catchUp: CatchUpPolicy = .latest) throws -> ScheduledPipeline {
        ScheduledPipeline(name: name, schedule: try CronSchedule(cron, timeZone: zone), catchUp: catchUp)
    }

    @Test("a pipeline that never ran waits for its first slot: sleep until then, then run it")
    func firstSlot() throws {
        let start = utc("2024-03-06T06:00:30Z")
        var core = SchedulerCore(pipelines: [try pipeline("seoul", "20 * * * *")], lastStarts: [:], now: start)
        #expect(core.decide(now: start) == .sleep(until: utc("2024-03-06T06:20:00Z")))
        #expect(core.decide(now: utc("2024-03-06T06:20:00Z")) == .run([.init(pipeline: "seoul", slot: utc("2024-03-06T06:20:00Z"))]))
        // Having run it, the next decision is the next slot, not the same one again.
        #expect(core.decide(now: utc("2024-03-06T06:20:04Z")) == .sleep(until: utc("2024-03-06T07:20:00Z")))
    }

    @Test("after downtime, catch_up: latest runs once for the newest missed slot")
    func catchUpLatest() throws {
        let now = utc("2024-03-06T09:30:00Z")
        var core = SchedulerCore(pipelines: [try pipeline("seoul", "20 * * * *")],
                                 lastStarts: ["seoul": utc("2024-03-06T06:20:01Z")], now: now)
        // Missed 07:20, 08:20, 09:20: one run, for 09:20, two slots folded in.
        #expect(core.decide(now: now) == .run([.init(pipeline: "seoul", slot: utc("2024-03-06T09:20:00Z"), skippedSlots: 2)]))
        #expect(core.decide(now: now.addingTimeInterval(5)) == .sleep(until: utc("2024-03-06T10:20:00Z")))
    }

    @Test("after downtime, catch_up: all runs every missed slot, oldest first")
    func catchUpAll() throws {
        let now = utc("2024-03-06T09:30:00Z")
        var core = SchedulerCore(pipelines: [try pipeline("seoul", "20 * * * *", catchUp: .all)],
                                 lastStarts: ["seoul": utc("2024-03-06T06:20:01Z")], now: now)
        #expect(core.decide(now: now) == .run(["07:20", "08:20", "09:20"].map {
            .init(pipeline: "seoul", slot: utc("2024-03-06T\($0):00Z"))
        }))
    }

    @Test("catch_up: all is bounded: the newest slots run and the first says older ones were dropped")
    func catchUpAllIsBounded() throws {
        let now = utc("2024-03-06T12:00:00Z")
        var core = SchedulerCore(pipelines: [try pipeline("minutely", "* * * * *", catchUp: .all)],
                                 lastStarts: ["minutely": utc("2024-03-05T12:00:00Z")], now: now, maximumCatchUp: 10)
        guard case .run(let due) = core.decide(now: now) else { Issue.record("expected runs"); return }
        #expect(due.count == 10)
        #expect(due.first?.slot == utc("2024-03-06T11:51:00Z") && due.first?.truncated == true)
        #expect(due.last?.slot == now)
        #expect(due.dropFirst().allSatisfy { !$0.truncated })
    }

    @Test("pipelines due together run in one decision, by slot then name; a start in the ledger after the slot means it ran")
    func severalPipelines() throws {
        let now = utc("2024-03-06T07:00:00Z")
        var core = SchedulerCore(
            pipelines: [try pipeline("b-hourly", "0 * * * *"), try pipeline("a-hourly", "@hourly"), try pipeline("c-ran", "0 * * * *"),
                        try pipeline("d-daily", "0 0 * * *", zone: "UTC")],
            lastStarts: ["b-hourly": utc("2024-03-06T06:00:02Z"), "a-hourly": utc("2024-03-06T06:00:01Z"),
                         "c-ran": utc("2024-03-06T07:00:00Z"), "d-daily": utc("2024-03-06T00:00:01Z")],
            now: now)
        #expect(core.decide(now: now) == .run([.init(pipeline: "a-hourly", slot: now), .init(pipeline: "b-hourly", slot: now)]))
        let upcoming = core.upcoming(after: now)
        #expect(upcoming.map(\.pipeline) == ["a-hourly", "b-hourly", "c-ran", "d-daily"])
        #expect(upcoming.first?.at == utc("2024-03-06T08:00:00Z"))
        #expect(upcoming.last?.at == utc("2024-03-07T00:00:00Z"))
    }

    @Test("a schedule that can no longer fire leaves the core idle")
    func idle() throws {
        // 31 February is refused, but a year-bounded schedule is not expressible; use an empty pipeline list.
        var core = SchedulerCore(pipelines: [], lastStarts: [:], now: utc("2024-03-06T07:00:00Z"))
        #expect(core.decide(now: utc("2024-03-06T07:00:00Z")) == .idle)
    }

    @Test("a clock that steps back does not run a slot twice")
    func clockStepsBack() throws {
        var core = SchedulerCore(pipelines: [try pipeline("seoul", "20 * * * *")], lastStarts: [:], now: utc("2024-03-06T06:00:00Z"))
        #expect(core.decide(now: utc("2024-03-06T06:20:00Z")) == .run([.init(pipeline: "seoul", slot: utc("2024-03-06T06:20:00Z"))]))
        // The clock is set back ten minutes: 06:20 is not due again; the next sleep is for 07:20.
        #expect(core.decide(now: utc("2024-03-06T06:10:00Z")) == .sleep(until: utc("2024-03-06T07:20:00Z")))
    }

    // MARK: - Simulation

    /// A few pipelines with random schedules and policies, a start, and how long runs take.
    static let simulations = Generator<([GeneratedCron], [CatchUpPolicy], Date, [Int]), Shrink.None<([GeneratedCron], [CatchUpPolicy], Date, [Int])>> { rng in
        let count = Int.random(in: 1...3, using: &rng)
        var crons: [GeneratedCron] = []
        while crons.count < count {
            let c = CronGen.expression.run(using: &rng)
            crons.append(c)
        }
        let policies = (0..<count).map { _ in Bool.random(using: &rng) ? CatchUpPolicy.latest : .all }
        let start = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 1_577_836_800...1_893_456_000, using: &rng)))
        let durations = (0..<64).map { _ in Int.random(in: 0...(Bool.random(using: &rng) ? 5 : 400), using: &rng) }
        return (crons, policies, start, durations)
    }

    @Test("driving the core with a fake clock for two days: it never busy-loops, runs only fire times, misses none (all) and never goes backwards (latest)")
    func simulatedDays() throws {
        try seededPropertyCheck(count: 40, input: Self.simulations) { crons, policies, start, durations in
            let zone = "America/New_York"
            let pipelines = try crons.enumerated().map { i, c in
                ScheduledPipeline(name: "p\(i)", schedule: try CronSchedule(c.text, timeZone: zone), catchUp: policies[i])
            }
            var core = SchedulerCore(pipelines: pipelines, lastStarts: [:], now: start, maximumCatchUp: 100_000)
            let end = start.addingTimeInterval(2 * 86400)
            var now = start
            var ran: [String: [Date]] = [:]
            var step = 0
            var lastDecision = start
            while now < end {
                step += 1
                if step > 20_000 { Issue.record("too many decisions: busy loop? \(crons)"); return }
                lastDecision = now
                switch core.decide(now: now) {
                case .run(let due):
                    #expect(!due.isEmpty)
                    for d in due {
                        #expect(d.slot <= now)
                        ran[d.pipeline, default: []].append(d.slot)
                        now = now.addingTimeInterval(TimeInterval(durations[step % durations.count]))  // the run takes a while
                    }
                case .sleep(let until):
                    #expect(until > now, "sleep until \(iso(until)) at \(iso(now)): that would be a busy loop")
                    now = until
                case .idle:
                    now = end
                }
            }
            for (i, p) in pipelines.enumerated() {
                let slots = ran[p.name] ?? []
                let due = p.schedule.fireTimes(after: start, through: lastDecision, newest: 100_000).times
                #expect(zip(slots, slots.dropFirst()).allSatisfy { $0 < $1 }, "\(crons[i]): slots out of order or repeated")
                #expect(Set(slots).isSubset(of: Set(due)), "\(crons[i]): ran a slot that is not a fire time")
                switch p.catchUp {
                case .all:
                    // Every fire time up to the last decision ran, exactly once, in order.
                    #expect(slots == due, "\(crons[i]) all: ran \(slots.count) of \(due.count)")
                case .latest:
                    // Every fire time up to the last decision has a run at or after it.
                    #expect(due.allSatisfy { f in slots.contains { $0 >= f } }, "\(crons[i]) latest: a fire time never ran")
                    if durations.allSatisfy({ $0 == 0 }) { #expect(slots == due) }
                }
            }
        }
    }
}
