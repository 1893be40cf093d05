import Domain
import Foundation
import GRDB
import Pipeline

extension SQLiteStore {
    /// One station's hourly PM10/PM2.5 (µg/m³) from `first` to `last` (KST dates, inclusive),
    /// keyed by hour slot; missing values stay absent.
    public func hourlyPM(station: String, from first: LocalDate, through last: LocalDate) throws -> DustPair<HourlySeries<Double>> {
        let rows = try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT kst_date, kst_hour, pm10, pm25 FROM measurement
                WHERE station_name = ? AND kst_date BETWEEN ? AND ? ORDER BY kst_date, kst_hour
                """, arguments: [station, first.description, last.description])
        }
        var pm10: [HourSlot: Double] = [:]
        var pm25: [HourSlot: Double] = [:]
        for row in rows {
            guard let date = LocalDate(iso: row["kst_date"] as String), let slot = HourSlot(date: date, hour: row["kst_hour"]) else { continue }
            if let v = row["pm10"] as Double? { pm10[slot] = v }
            if let v = row["pm25"] as Double? { pm25[slot] = v }
        }
        return DustPair(pm10: HourlySeries(pm10), pm25: HourlySeries(pm25))
    }

    /// Whether a station has any measurement at all (to tell "no such station" from "no data that week").
    public func hasStation(_ name: String) throws -> Bool {
        try pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM measurement WHERE station_name = ?)", arguments: [name]) ?? false }
    }

    public func stationCoordinates() throws -> [NamedCoordinate] {
        guard try hasTable("station") else { return [] }
        return try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT name, latitude, longitude FROM station
                WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY name
                """).map { NamedCoordinate(name: $0["name"], latitude: $0["latitude"], longitude: $0["longitude"]) }
        }
    }

    public func placeCoordinates() throws -> [NamedCoordinate] {
        guard try hasTable("place") else { return [] }
        return try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT query, latitude, longitude FROM place
                WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY query
                """).map { NamedCoordinate(name: $0["query"], latitude: $0["latitude"], longitude: $0["longitude"]) }
        }
    }
}

extension SQLiteStore {
    /// A pipeline's bookmarks (name → value).
    public func bookmarks(pipeline: String) throws -> [String: String] {
        try pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT name, value FROM bookmark WHERE pipeline = ?", arguments: [pipeline])
            return Dictionary(rows.map { ($0["name"] as String, $0["value"] as String) }, uniquingKeysWith: { _, b in b })
        }
    }
}
