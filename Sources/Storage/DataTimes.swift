import Domain
import Foundation
import GRDB
import Pipeline

extension SQLiteStore {
    /// The newest time the data of `table` carries, with its kind: forecasts by release,
    /// postings by modification; nil for tables whose rows carry no such time (or are empty).
    /// Measurements are timed per pipeline by their `newest_observed_at` bookmark instead.
    public func newestDataTime(in table: String) throws -> (Date, DataTimeKind)? {
        switch table {
        case "forecast":
            guard try hasTable("forecast") else { return nil }
            // `YYYY-MM-DD HH:00`, KST: the hour's start as an instant.
            let text = try pool.read { try String.fetchOne($0, sql: "SELECT max(released_at) FROM forecast") }
            guard let text, let date = LocalDate(iso: text.prefix(10)), let hour = Int(text.dropFirst(11).prefix(2)),
                  let slot = HourSlot(date: date, hour: hour) else { return nil }
            return (slot.start, .issued)
        case "job_posting":
            guard try hasTable("job_posting") else { return nil }
            let text = try pool.read { try String.fetchOne($0, sql: "SELECT max(modified_at) FROM job_posting") }
            return Self.parseUTC(text).map { ($0, .modified) }
        default:
            return nil
        }
    }
}
