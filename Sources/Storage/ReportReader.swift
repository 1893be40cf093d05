import Domain
import Foundation
import Pipeline

/// What a report covers: one station, or every station of a province (시도).
public enum ReportSubject: Sendable, Equatable {
    case station(String)
    case province(String)

    /// The station or province name.
    public var name: String {
        switch self {
        case .station(let n), .province(let n): n
        }
    }
}

/// One station's PM for one hour, as read from the database (µg/m³; nil when missing).
public struct StationHour: Sendable, Equatable {
    public var station: String
    public var slot: HourSlot
    public var pm: DustPair<Double?>

    public init(station: String, slot: HourSlot, pm10: Double?, pm25: Double?) {
        self.station = station
        self.slot = slot
        self.pm = DustPair(pm10: pm10, pm25: pm25)
    }
}

/// Postings per region, when career data is loaded.
public struct RegionCount: Sendable, Equatable {
    public var region: String
    public var count: Int
    public init(region: String, count: Int) { self.region = region; self.count = count }
}

/// The report's reads (also `intake`'s station suggestions), through a read-only connection to
/// either store: it never writes or migrates, and it is the only place the report's SQL lives
/// (written to mean the same on SQLite and PostgreSQL).
public struct ReportReader {
    let database: any SQLReading

    public init(database: any SQLReading) { self.database = database }

    /// Province of a measurement: its own `sido`, else the station's.
    static let provinceJoin = "FROM measurement m LEFT JOIN station s ON s.name = m.station_name"

    func filter(_ subject: ReportSubject) -> String {
        switch subject {
        case .station: "m.station_name = :name"
        case .province: "coalesce(m.sido, s.sido) = :name"
        }
    }

    /// The newest KST date with a measurement; nil when the subject has none.
    public func newestDate(of subject: ReportSubject) throws -> LocalDate? {
        let result = try database.fetchAll(sql: "SELECT max(m.kst_date) \(Self.provinceJoin) WHERE \(filter(subject))",
                                           parameters: ["name": .text(subject.name)])
        return result.rows.first?.first?.text.flatMap(LocalDate.init(iso:))
    }

    /// The subject's newest `limit` KST dates with a PM10 or PM2.5 value, on or before `through`
    /// when given, newest first.
    public func daysWithData(of subject: ReportSubject, through last: LocalDate?, limit: Int) throws -> [LocalDate] {
        var parameters: [String: SQLValue] = ["name": .text(subject.name)]
        if let last { parameters["last"] = .text(last.description) }
        let result = try database.fetchAll(sql: """
            SELECT DISTINCT m.kst_date \(Self.provinceJoin)
            WHERE \(filter(subject)) AND (m.pm10 IS NOT NULL OR m.pm25 IS NOT NULL)\(last == nil ? "" : " AND m.kst_date <= :last")
            ORDER BY m.kst_date DESC LIMIT \(max(limit, 1))
            """, parameters: parameters)
        return result.rows.compactMap { $0.first?.text.flatMap(LocalDate.init(iso:)) }
    }

    /// Station (or province) names that do have measurements, for the error message.
    public func knownNames(of subject: ReportSubject) throws -> [String] {
        let sql = switch subject {
        case .station: "SELECT DISTINCT station_name FROM measurement ORDER BY 1"
        case .province: "SELECT DISTINCT coalesce(m.sido, s.sido) \(Self.provinceJoin) WHERE coalesce(m.sido, s.sido) IS NOT NULL ORDER BY 1"
        }
        return try database.fetchAll(sql: sql).rows.compactMap { $0.first?.text }
    }

    /// Every station-hour of the subject between two KST dates (inclusive).
    public func stationHours(of subject: ReportSubject, from first: LocalDate, through last: LocalDate) throws -> [StationHour] {
        var rows: [StationHour] = []
        try database.run(sql: """
            SELECT m.station_name, m.kst_date, m.kst_hour, m.pm10, m.pm25 \(Self.provinceJoin)
            WHERE \(filter(subject)) AND m.kst_date BETWEEN :first AND :last
            ORDER BY m.kst_date, m.kst_hour, m.station_name
            """, parameters: ["name": .text(subject.name), "first": .text(first.description), "last": .text(last.description)],
            columns: { _ in }, row: { v in
                guard let station = v[0].text, let date = v[1].text.flatMap(LocalDate.init(iso:)),
                      let hour = v[2].integer, let slot = HourSlot(date: date, hour: hour) else { return }
                rows.append(StationHour(station: station, slot: slot, pm10: v[3].number, pm25: v[4].number))
            })
        return rows
    }

    /// A one-line description: a station's province, address and network; a province's station count.
    public func subtitle(of subject: ReportSubject) throws -> String {
        switch subject {
        case .station(let name):
            let details = try database.fetchAll(sql: """
                SELECT coalesce(s.sido, (SELECT max(sido) FROM measurement WHERE station_name = :name)), s.address, s.network
                FROM (SELECT CAST(:name AS TEXT) AS name) n LEFT JOIN station s ON s.name = n.name
                """, parameters: ["name": .text(name)]).rows.first ?? []
            let parts = details.compactMap(\.text).filter { !$0.isEmpty }
            return parts.isEmpty ? "AirKorea station" : parts.joined(separator: " · ")
        case .province(let name):
            let count = try database.fetchAll(sql: "SELECT count(DISTINCT m.station_name) \(Self.provinceJoin) WHERE \(filter(subject))",
                                              parameters: ["name": .text(name)]).rows.first?.first?.integer ?? 0
            return "\(count) AirKorea station\(count == 1 ? "" : "s") in \(name)"
        }
    }

    /// Postings per province (`job_posting_location.province`, e.g. 서울), counted once per
    /// posting, most first; nil when no posting has a location.
    public func postingsByRegion(limit: Int = 20) throws -> [RegionCount]? {
        let result = try database.fetchAll(sql: """
            SELECT province, count(DISTINCT posting_id) AS postings FROM job_posting_location
            WHERE province IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT \(max(limit, 1))
            """)
        let counts = result.rows.compactMap { row -> RegionCount? in
            guard let region = row[0].text, let count = row[1].integer else { return nil }
            return RegionCount(region: region, count: count)
        }
        return counts.isEmpty ? nil : counts
    }
}
