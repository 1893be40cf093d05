import Domain
import Foundation
import GRDB
import Pipeline

/// Writes records inside the transaction `SQLiteStore.load` opened. Upserts by natural key with
/// a `RETURNING revision` that tells inserted (0), updated (>0) and unchanged (no row: the
/// `WHERE` of the update found nothing different) apart in one statement.
final class GRDBLoadSession: LoadSession {
    let db: Database
    let run: RunID
    private(set) var diagnosticCount = 0
    private var pipelineName: String?
    private var stationsCompleted: Set<StationFacts> = []
    /// Prepared once per load: looking a statement up by its SQL text costs a hash of ~1 KB per row.
    private var measurementStatements: MeasurementStatements?
    /// Diagnostics can be one per row (a grade that disagrees), so this statement is kept too.
    private var diagnosticInsert: RawStatement?

    /// What a measurement says about its station. Compared and hashed as UTF-8 bytes: String's own
    /// hashing normalises Unicode first, which for Hangul names cost more than the row's insert.
    private struct StationFacts: Hashable {
        var name: String
        var code: String?
        var sido: String?
        var network: String?

        static func == (a: StationFacts, b: StationFacts) -> Bool {
            same(a.name, b.name) && same(a.code, b.code) && same(a.sido, b.sido) && same(a.network, b.network)
        }

        private static func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case (var a?, var b?):
                guard a.utf8.count == b.utf8.count else { return false }
                return a.withUTF8 { x in b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
            default: return false
            }
        }

        func hash(into hasher: inout Hasher) {
            Self.hash(name, into: &hasher); Self.hash(code, into: &hasher)
            Self.hash(sido, into: &hasher); Self.hash(network, into: &hasher)
        }

        private static func hash(_ text: String?, into hasher: inout Hasher) {
            guard var text else { hasher.combine(0 as UInt8); return }
            hasher.combine(1 as UInt8)
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(text.utf8.count)
        }
    }

    init(db: Database, run: RunID) {
        self.db = db
        self.run = run
    }

    func write(_ record: FeedRecord, payload: RawPayload?) throws -> WriteOutcome {
        switch record {
        case .measurement(let m): return try writeMeasurement(m, payload: payload)
        case .station(let s): return try writeStation(s)
        case .nearbyStation(let n): return try writeNearby(n)
        case .tmCoordinate(let t): return try writeTM(t)
        case .forecast(let f): return try writeForecast(f, payload: payload)
        case .career(let c): return try writeCareer(c, payload: payload)
        }
    }

    func record(_ diagnostic: Diagnostic, payload: RawPayload?) throws {
        var insert = try diagnosticInsert ?? RawStatement(db, sql: """
            INSERT INTO diagnostic (run_id, payload_sha256, code, message, location, value) VALUES (?, ?, ?, ?, ?, ?)
            """)
        defer { diagnosticInsert = insert }
        insert.begin()
        insert.bind(Int(run.rawValue)); insert.bind(payload?.sha256); insert.bind(diagnostic.code.rawValue)
        insert.bind(diagnostic.message); insert.bind(diagnostic.location); insert.bind(diagnostic.value)
        _ = try insert.run()
        diagnosticCount += 1
    }

    func wasLoaded(sha256: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM payload WHERE sha256 = ?)", arguments: [sha256]) ?? false
    }

    func markLoaded(_ payload: RawPayload, itemCount: Int, archivePath: String?) throws {
        try db.execute(sql: """
            INSERT INTO payload (sha256, source, operation, format, request_url, fetched_at, http_status, content_type,
                                 byte_count, item_count, archive_path, run_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (sha256) DO NOTHING
            """, arguments: [payload.sha256, payload.source, payload.operation, payload.format.rawValue,
                             payload.request?.displayURL, iso8601UTC(payload.fetchedAt), payload.httpStatus,
                             payload.contentType, payload.byteCount, itemCount, archivePath, run.rawValue])
    }

    func setBookmark(_ name: String, to value: String) throws {
        let pipeline = try pipelineName ?? String.fetchOne(db, sql: "SELECT pipeline FROM run WHERE id = ?", arguments: [run.rawValue]) ?? "?"
        pipelineName = pipeline
        try db.execute(sql: """
            INSERT INTO bookmark (pipeline, name, value, run_id) VALUES (?, ?, ?, ?)
            ON CONFLICT (pipeline, name) DO UPDATE SET value = excluded.value, run_id = excluded.run_id
            """, arguments: [pipeline, name, value, run.rawValue])
    }

    // MARK: - Upserts

    /// Inserted, updated or unchanged: `upsert.insert`, then `upsert.update` only when the key existed.
    func upsert(_ upsert: UpsertSQL, _ arguments: StatementArguments) throws -> WriteOutcome {
        try db.cachedStatement(sql: upsert.insert).execute(arguments: arguments)
        if db.changesCount > 0 { return .inserted }
        try db.cachedStatement(sql: upsert.update).execute(arguments: arguments)
        return db.changesCount > 0 ? .updated : .unchanged
    }

    private static let measurementColumns = [
        "station_name", "observed_at", "kst_date", "kst_hour", "data_time", "sido", "network",
        "pm10", "pm25", "pm10_24h", "pm25_24h", "o3", "no2", "co", "so2", "khai",
        "pm10_grade", "pm25_grade", "pm10_grade_1h", "pm25_grade_1h", "o3_grade", "no2_grade", "co_grade", "so2_grade", "khai_grade",
        "pm10_flag", "pm25_flag", "o3_flag", "no2_flag", "co_flag", "so2_flag",
        "our_pm10_grade", "our_pm25_grade", "our_pm10_grade_1h", "our_pm25_grade_1h", "cai", "cai_grade", "aqi_pm10", "aqi_pm25",
        "payload_sha256",
    ]

    /// Bound through `RawStatement` (tens of thousands of rows per load), not `upsert(_:_:)`.
    ///
    /// `sido`: realtime-by-station items carry no province, so a row without one takes its
    /// station's (`station.sido`, from a province run or the station list's address) when it is
    /// inserted, and a later row without one never erases it. Rows inserted before the station's
    /// province was known get it when it becomes known (trigger `station_sido_fills_measurement`).
    /// `coalesce` evaluates the lookup only for rows without a province.
    static let measurementUpsert = UpsertSQL(table: "measurement", columns: measurementColumns,
                                             key: ["station_name", "observed_at"], keepKnown: ["sido"],
                                             insertFallbacks: ["sido": "(SELECT sido FROM station WHERE name = {station_name})"])

    private struct MeasurementStatements {
        var insert: RawStatement
        var update: RawStatement
    }

    private func writeMeasurement(_ m: HourlyMeasurement, payload: RawPayload?) throws -> WriteOutcome {
        var statements = try measurementStatements
            ?? MeasurementStatements(insert: RawStatement(db, sql: Self.measurementUpsert.insert),
                                     update: RawStatement(db, sql: Self.measurementUpsert.update))
        defer { measurementStatements = statements }
        Self.bind(m, payload: payload, to: &statements.insert)
        let result: WriteOutcome
        if try statements.insert.run() == 1 {
            result = .inserted
        } else {
            Self.bind(m, payload: payload, to: &statements.update)
            result = try statements.update.run() == 1 ? .updated : .unchanged
        }
        try completeStation(name: m.stationName, code: m.stationCode, sido: m.sidoName, network: m.network)
        return result
    }

    /// Binds a measurement in the order of `measurementColumns`.
    private static func bind(_ m: HourlyMeasurement, payload: RawPayload?, to row: inout RawStatement) {
        row.begin()
        row.bind(m.stationName); row.bind(iso8601UTC(m.slot.end)); row.bind(m.slot.date.description)
        row.bind(m.slot.hour); row.bind(m.dataTime); row.bind(m.sidoName); row.bind(m.network)
        row.bind(m.pm.pm10); row.bind(m.pm.pm25); row.bind(m.pm24h.pm10); row.bind(m.pm24h.pm25)
        row.bind(m.o3ppm); row.bind(m.no2ppm); row.bind(m.coppm); row.bind(m.so2ppm); row.bind(m.khai)
        row.bind(m.grades.pm10?.rawValue); row.bind(m.grades.pm25?.rawValue)
        row.bind(m.grades1h.pm10?.rawValue); row.bind(m.grades1h.pm25?.rawValue)
        row.bind(m.grades.o3?.rawValue); row.bind(m.grades.no2?.rawValue); row.bind(m.grades.co?.rawValue)
        row.bind(m.grades.so2?.rawValue); row.bind(m.khaiGrade?.rawValue)
        row.bind(m.flags.pm10?.description); row.bind(m.flags.pm25?.description); row.bind(m.flags.o3?.description)
        row.bind(m.flags.no2?.description); row.bind(m.flags.co?.description); row.bind(m.flags.so2?.description)
        let i = m.indices
        row.bind(i?.koreanGrade24h.pm10?.rawValue); row.bind(i?.koreanGrade24h.pm25?.rawValue)
        row.bind(i?.koreanGrade1h.pm10?.rawValue); row.bind(i?.koreanGrade1h.pm25?.rawValue)
        row.bind(i?.cai?.value); row.bind(i?.caiGrade?.rawValue); row.bind(i?.aqi.pm10?.value); row.bind(i?.aqi.pm25?.value)
        row.bind(payload?.sha256)
    }

    /// Fills in what a measurement knows about its station without counting it as a station write.
    /// Each distinct (name, code, province, network) is written once per load: the same stations
    /// repeat every hour.
    private func completeStation(name: String, code: String?, sido: String?, network: String?) throws {
        let facts = StationFacts(name: name, code: code, sido: sido, network: network)
        guard !stationsCompleted.contains(facts) else { return }
        stationsCompleted.insert(facts)
        let statement = try db.cachedStatement(sql: """
            INSERT INTO station (name, code, sido, network) VALUES (?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET code = coalesce(excluded.code, station.code),
                sido = coalesce(excluded.sido, station.sido), network = coalesce(excluded.network, station.network)
            WHERE (excluded.code IS NOT NULL AND excluded.code IS NOT station.code)
               OR (excluded.sido IS NOT NULL AND excluded.sido IS NOT station.sido)
               OR (excluded.network IS NOT NULL AND excluded.network IS NOT station.network)
            """)
        try statement.execute(arguments: [name, code, sido, network])
    }

    private func writeStation(_ s: Station) throws -> WriteOutcome {
        // Station has no revision column: compare first, then write.
        let existing = try Row.fetchOne(db, sql: """
            SELECT address, network, installed_year, items, latitude, longitude FROM station WHERE name = ?
            """, arguments: [s.name])
        let incoming: [DatabaseValue] = [s.address.databaseValue, s.network.databaseValue, s.installedYear.databaseValue,
                                         s.items.databaseValue, s.latitude.databaseValue, s.longitude.databaseValue]
        if let existing, Array(existing.databaseValues) == incoming { return .unchanged }
        try db.execute(sql: """
            INSERT INTO station (name, address, network, installed_year, items, latitude, longitude) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET address = excluded.address, network = excluded.network,
                installed_year = excluded.installed_year, items = excluded.items,
                latitude = excluded.latitude, longitude = excluded.longitude
            """, arguments: [s.name, s.address, s.network, s.installedYear, s.items, s.latitude, s.longitude])
        return existing == nil ? .inserted : .updated
    }

    private func writeNearby(_ n: NearbyStation) throws -> WriteOutcome {
        try compareAndWrite(table: "nearby_station", key: ["tm_x": n.tmX, "tm_y": n.tmY, "station_name": n.stationName],
                            values: ["address": n.address, "distance_km": n.distanceKm])
    }

    private func writeTM(_ t: TMCoordinate) throws -> WriteOutcome {
        try compareAndWrite(table: "tm_coordinate", key: ["sido": t.sidoName, "sgg": t.sggName, "umd": t.umdName],
                            values: ["tm_x": t.tmX, "tm_y": t.tmY])
    }

    private static let forecastUpsert = UpsertSQL(
        table: "forecast",
        columns: ["inform_code", "forecast_date", "released_at", "overall", "cause", "action_knack", "image_urls", "payload_sha256"],
        key: ["inform_code", "forecast_date", "released_at"])

    private func writeForecast(_ f: Forecast, payload: RawPayload?) throws -> WriteOutcome {
        let releasedAt = "\(f.releaseDate) \(f.releaseHour < 10 ? "0" : "")\(f.releaseHour):00"
        let images = "[" + f.imageURLs.map { url in url.map { jsonString($0) } ?? "null" }.joined(separator: ",") + "]"
        var result = try upsert(Self.forecastUpsert, [f.informCode, f.forecastDate.description, releasedAt, f.overall, f.cause,
                                                      f.actionKnack, images, payload?.sha256])
        // Region rows: replace the set when it differs.
        let existing = try Row.fetchAll(db, sql: """
            SELECT region, grade_text FROM forecast_region WHERE inform_code = ? AND forecast_date = ? AND released_at = ? ORDER BY region
            """, arguments: [f.informCode, f.forecastDate.description, releasedAt]).map { "\($0[0] as String)=\($0[1] as String)" }
        let incoming = f.regionGrades.map { "\($0.region)=\($0.gradeText)" }.sorted()
        if existing != incoming {
            try db.execute(sql: "DELETE FROM forecast_region WHERE inform_code = ? AND forecast_date = ? AND released_at = ?",
                           arguments: [f.informCode, f.forecastDate.description, releasedAt])
            for region in f.regionGrades {
                try db.execute(sql: """
                    INSERT OR REPLACE INTO forecast_region (inform_code, forecast_date, released_at, region, grade_text, grade)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [f.informCode, f.forecastDate.description, releasedAt, region.region, region.gradeText,
                                     region.grade?.rawValue])
            }
            if result == .unchanged { result = .updated }
        }
        return result
    }

    /// Generic compare-then-upsert for small tables without a revision column.
    private func compareAndWrite(table: String, key: KeyValuePairs<String, any DatabaseValueConvertible>,
                                 values: KeyValuePairs<String, (any DatabaseValueConvertible)?>) throws -> WriteOutcome {
        let keyWhere = key.map { "\($0.key) = ?" }.joined(separator: " AND ")
        let keyArgs = StatementArguments(key.map { $0.value as (any DatabaseValueConvertible)? })
        let existing = try Row.fetchOne(db, sql: "SELECT \(values.map(\.key).joined(separator: ", ")) FROM \(table) WHERE \(keyWhere)",
                                        arguments: keyArgs)
        let incoming = values.map { $0.value?.databaseValue ?? .null }
        if let existing, Array(existing.databaseValues) == incoming { return .unchanged }
        let columns = key.map(\.key) + values.map(\.key)
        let args = StatementArguments(key.map { $0.value as (any DatabaseValueConvertible)? } + values.map(\.value))
        try db.execute(sql: """
            INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            ON CONFLICT (\(key.map(\.key).joined(separator: ", "))) DO UPDATE SET
            \(values.map { "\($0.key) = excluded.\($0.key)" }.joined(separator: ", "))
            """, arguments: args)
        return existing == nil ? .inserted : .updated
    }
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
