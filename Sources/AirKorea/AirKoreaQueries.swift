import Domain
import Foundation
import Pipeline

/// What feedline reads back from AirKorea's tables: the declared queries behind `intake`,
/// `backfill` and the `{stations}` placeholder. Each is one reading statement that means the
/// same on every store (see `SQLReading`), run on the store's `reading()`.
public enum AirKoreaQueries {
    /// One station's hourly PM10/PM2.5 (µg/m³) from `first` to `last` (KST dates, inclusive),
    /// keyed by hour slot; missing values stay absent.
    public static func hourlyPM(_ database: any SQLReading, station: String, from first: LocalDate,
                                through last: LocalDate) throws -> DustPair<HourlySeries<Double>> {
        var pm10: [HourSlot: Double] = [:]
        var pm25: [HourSlot: Double] = [:]
        try database.run(sql: """
            SELECT CAST(kst_date AS TEXT), kst_hour, pm10, pm25 FROM measurement
            WHERE station_name = :station AND kst_date BETWEEN :first AND :last ORDER BY kst_date, kst_hour
            """, parameters: ["station": .text(station), "first": .text(first.description), "last": .text(last.description)],
            columns: { _ in }) { row in
            guard let date = row[0].text.flatMap(LocalDate.init(iso:)), let hour = row[1].integer,
                  let slot = HourSlot(date: date, hour: hour) else { return }
            if let v = row[2].number { pm10[slot] = v }
            if let v = row[3].number { pm25[slot] = v }
        }
        return DustPair(pm10: HourlySeries(pm10), pm25: HourlySeries(pm25))
    }

    /// Whether a station has any measurement at all (to tell "no such station" from "no data
    /// that week").
    public static func hasStation(_ database: any SQLReading, _ name: String) throws -> Bool {
        try !database.fetchAll(sql: "SELECT 1 FROM measurement WHERE station_name = :station LIMIT 1",
                               parameters: ["station": .text(name)]).rows.isEmpty
    }

    /// Which hours each of `stations` has, per KST day from `from` to `through`, from the
    /// `measurement_completeness` view: bit `h` of a mask is set when the hour starting at h:00
    /// KST has a row. Days without any row are absent (no hours); so is everything when the
    /// database has no such view yet.
    public static func hoursPresent(_ database: any SQLReading, stations: [String], from: LocalDate,
                                    through: LocalDate) throws -> [String: [LocalDate: UInt32]] {
        guard !stations.isEmpty, try database.hasTable("measurement_completeness") else { return [:] }
        var parameters: [String: SQLValue] = ["from": .text(from.description), "through": .text(through.description)]
        for (i, station) in stations.enumerated() { parameters["station\(i)"] = .text(station) }
        let list = stations.indices.map { ":station\($0)" }.joined(separator: ", ")
        var out: [String: [LocalDate: UInt32]] = [:]
        try database.run(sql: """
            SELECT station_name, CAST(kst_date AS TEXT), hours_mask FROM measurement_completeness
            WHERE kst_date BETWEEN :from AND :through AND station_name IN (\(list))
            """, parameters: parameters, columns: { _ in }) { row in
            guard let name = row[0].text, let day = row[1].text.flatMap(LocalDate.init(iso:)),
                  let mask = row[2].integer else { return }
            out[name, default: [:]][day] = UInt32(truncatingIfNeeded: mask)
        }
        return out
    }

    /// Every monitoring station with coordinates, by name (empty when the station list was never
    /// loaded): what `{stations}` stands for.
    public static func stationCoordinates(_ database: any SQLReading) throws -> [NamedCoordinate] {
        try NamedCoordinate.all(in: "station", named: "name", from: database)
    }
}
