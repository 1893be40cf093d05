import Domain
import Foundation
import Pipeline

/// `feedline backfill --json`: one object with what the lines say.
///
/// ```json
/// {"pipeline": "airkorea-jongno", "from": "2024-03-01", "to": "2024-03-06", "dry_run": false,
///  "expected_hours": 144, "newest_hour": "2024-03-06T14:00:00+09:00", "exit_code": 0,
///  "stations": [{"station": "종로구", "missing_hours": 20, "missing": [{"from": "…", "to": "…"}], "too_old": [],
///                "still_missing_hours": 0, "still_missing": [], "why": null}],
///  "plan": [{"station": "종로구", "data_term": "DAILY", "estimated_calls": 1, "fetched": true}],
///  "quota": {"planned_calls": 1, "remaining": 499, "limit": 500, "scope": "…"},
///  "runs": [ …as `feedline run --json`… ]}
/// ```
///
/// Hour ranges are KST hour starts (`from` and `to` inclusive); `too_old` are missing hours
/// older than the API keeps. `still_missing` is null before
/// anything was fetched (a dry run, or a run that stopped before loading).
struct BackfillJSON {
    var pipeline: String
    var from: LocalDate
    var through: LocalDate
    var stations: [String]
    var plan: BackfillPlan
    var remaining: Int?
    var limit: Int?
    var scope: QuotaScope?
    var dryRun: Bool
    /// After loading: what each station with gaps still misses, and why.
    var stillMissing: [String: (slots: [HourSlot], why: String?)] = [:]
    var runs: [RunReport] = []

    func text(status: ExitStatus) -> String {
        let loaded = !runs.isEmpty
        let gaps = Dictionary(plan.gaps.map { ($0.station, $0.missing) }, uniquingKeysWith: { a, _ in a })
        let stationObjects: [[String: Any]] = stations.map { station in
            let missing = gaps[station] ?? []
            var object: [String: Any] = ["station": station, "missing_hours": missing.count, "missing": Self.ranges(missing),
                                         "too_old": Self.ranges(plan.unreachable[station] ?? [])]
            if missing.isEmpty {
                object["still_missing_hours"] = 0
                object["still_missing"] = [Any]()
                object["why"] = NSNull()
            } else if loaded, let after = stillMissing[station] {
                object["still_missing_hours"] = after.slots.count
                object["still_missing"] = Self.ranges(after.slots)
                object["why"] = after.why ?? NSNull()
            } else {
                object["still_missing_hours"] = NSNull()
                object["still_missing"] = NSNull()
                object["why"] = NSNull()
            }
            return object
        }
        let planned: [[String: Any]] = plan.fetches.map { ["station": $0.station, "data_term": $0.dataTerm.rawValue, "estimated_calls": $0.estimatedCalls, "fetched": true] }
            + plan.skippedForQuota.map { ["station": $0.station, "data_term": $0.dataTerm.rawValue, "estimated_calls": $0.estimatedCalls, "fetched": false] }
        let quota: [String: Any] = [
            "planned_calls": plan.estimatedCalls,
            "remaining": remaining.map { $0 as Any } ?? NSNull(),
            "limit": limit.map { $0 as Any } ?? NSNull(),
            "scope": scope.map { $0.description as Any } ?? NSNull(),
        ]
        let runObjects: [Any] = runs.map(Console.RunReportJSON.init)
        let object: [String: Any] = [
            "pipeline": pipeline, "from": from.description, "to": through.description, "dry_run": dryRun,
            "expected_hours": plan.expected.count, "newest_hour": Self.iso(plan.newest), "exit_code": Int(status.rawValue),
            "stations": stationObjects, "plan": planned, "quota": quota, "runs": runObjects,
        ]
        return JSONText.encode(JSONValue(any: object))
    }

    /// Consecutive hours as `{"from", "to"}` ranges (inclusive), in time order.
    static func ranges(_ slots: [HourSlot]) -> [[String: String]] {
        var ranges: [(HourSlot, HourSlot)] = []
        for slot in slots.sorted() {
            if let last = ranges.last, BackfillPlanner.index(last.1) + 1 == BackfillPlanner.index(slot) {
                ranges[ranges.count - 1].1 = slot
            } else {
                ranges.append((slot, slot))
            }
        }
        return ranges.map { ["from": iso($0.0), "to": iso($0.1)] }
    }

    /// `2024-03-06T14:00:00+09:00`: the start of a KST hour.
    static func iso(_ slot: HourSlot) -> String {
        "\(slot.date)T\(slot.hour < 10 ? "0" : "")\(slot.hour):00:00+09:00"
    }
}
