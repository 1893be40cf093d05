import Domain
import GRDB

/// v9: one province reference every region-bearing table joins to, `sido` for by-station
/// measurements, and column names in `grade_agreement`.
///
/// - `province` holds the 17 시도 (code, short, official and English name) and `province_alias`
///   every name the feeds write for one of them, the short and official names included, so
///   any region column joins the same way: `JOIN province_alias a ON a.name = <column>` gives
///   `a.province_code`, and `province` the other names. Both are filled from `Province.all`
///   (Domain). Region columns: `measurement.sido`, `station.sido`, `tm_coordinate.sido`,
///   `forecast_region.region`, `school.region`, `job_posting_location.province` (its `전국`
///   and foreign locations have no province).
/// - A station's `sido` comes from its station-list address when no measurement named it (the
///   address starts with the province: `서울 종로구 …`), and when a station's `sido` becomes
///   known, its measurements without one (realtime-by-station rows: that operation sends no
///   `sidoName`) take it. Triggers on `station` do both, so any writer keeps them; measurements
///   loaded later for a station whose `sido` is known get it as they are inserted (see
///   `GRDBLoadSession`). Existing rows are filled once here.
/// - `grade_agreement` is recreated with the column names beside the API's field names:
///   `airkorea_column` (AirKorea's published grade) and `feedline_column` (the grade feedline
///   computed), e.g. `pm10Grade` → `pm10_grade` vs `our_pm10_grade`.
enum ProvinceMigration {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: tables)
        try ProvinceReference.sync(db)
        try db.execute(sql: stationTriggers)
        try db.execute(sql: backfill)
        try db.execute(sql: gradeAgreement)
    }

    static let tables = """
    -- The 17 시도, keyed by their two-digit administrative code.
    CREATE TABLE province (
        code            TEXT PRIMARY KEY,       -- 11 서울 … 52 전북 (행정구역코드)
        short_name      TEXT NOT NULL UNIQUE,   -- 서울: AirKorea sidoName, Saramin locations
        official_name   TEXT NOT NULL UNIQUE,   -- 서울특별시: CareerNet, TM coordinates
        english_name    TEXT NOT NULL UNIQUE    -- Seoul
    );

    -- Every name of a province the data may hold, the short and official names included.
    CREATE TABLE province_alias (
        name            TEXT PRIMARY KEY,
        province_code   TEXT NOT NULL REFERENCES province (code),
        kind            TEXT NOT NULL CHECK (kind IN ('short', 'official', 'former', 'forecast-region'))
    );
    CREATE INDEX province_alias_by_code ON province_alias (province_code);
    """

    /// The province a station address starts with (`서울 종로구 …`, `서울특별시 …`, `강원도 …`), as
    /// its short name; NULL when the first word is not a province's name.
    static let provinceOfAddress = """
        (SELECT p.short_name FROM province_alias a JOIN province p ON p.code = a.province_code
         WHERE a.kind <> 'forecast-region' AND a.name = substr(NEW.address, 1, instr(NEW.address || ' ', ' ') - 1))
        """

    static let stationTriggers = """
    -- A station the list describes takes its province from the address when none is known.
    CREATE TRIGGER station_sido_from_address AFTER INSERT ON station
    WHEN NEW.sido IS NULL AND NEW.address IS NOT NULL
    BEGIN
        UPDATE station SET sido = \(provinceOfAddress) WHERE name = NEW.name;
    END;
    CREATE TRIGGER station_sido_from_changed_address AFTER UPDATE OF address ON station
    WHEN NEW.sido IS NULL AND NEW.address IS NOT NULL
    BEGIN
        UPDATE station SET sido = \(provinceOfAddress) WHERE name = NEW.name;
    END;
    -- Once a station's province is known, its measurements without one take it.
    CREATE TRIGGER station_sido_fills_measurement AFTER UPDATE OF sido ON station
    WHEN OLD.sido IS NULL AND NEW.sido IS NOT NULL
    BEGIN
        UPDATE measurement SET sido = NEW.sido WHERE station_name = NEW.name AND sido IS NULL;
    END;
    """

    static let backfill = """
    UPDATE station SET sido = (
        SELECT p.short_name FROM province_alias a JOIN province p ON p.code = a.province_code
        WHERE a.kind <> 'forecast-region' AND a.name = substr(station.address, 1, instr(station.address || ' ', ' ') - 1))
    WHERE sido IS NULL AND address IS NOT NULL;
    UPDATE measurement SET sido = (SELECT s.sido FROM station s WHERE s.name = measurement.station_name)
    WHERE sido IS NULL AND station_name IN (SELECT name FROM station WHERE sido IS NOT NULL);
    """

    static let gradeAgreement = """
    DROP VIEW grade_agreement;
    -- How often AirKorea's published grades agree with the ones feedline computes, per grade:
    -- field is AirKorea's API name, airkorea_column and feedline_column the columns compared.
    CREATE VIEW grade_agreement AS
        SELECT 'pm10Grade' AS field, 'pm10_grade' AS airkorea_column, 'our_pm10_grade' AS feedline_column,
               count(*) AS checked, sum(pm10_grade = our_pm10_grade) AS agreeing,
               round(100.0 * sum(pm10_grade = our_pm10_grade) / count(*), 1) AS agreement_pct
        FROM measurement WHERE pm10_grade IS NOT NULL AND our_pm10_grade IS NOT NULL
        UNION ALL
        SELECT 'pm25Grade', 'pm25_grade', 'our_pm25_grade', count(*), sum(pm25_grade = our_pm25_grade),
               round(100.0 * sum(pm25_grade = our_pm25_grade) / count(*), 1)
        FROM measurement WHERE pm25_grade IS NOT NULL AND our_pm25_grade IS NOT NULL
        UNION ALL
        SELECT 'pm10Grade1h', 'pm10_grade_1h', 'our_pm10_grade_1h', count(*), sum(pm10_grade_1h = our_pm10_grade_1h),
               round(100.0 * sum(pm10_grade_1h = our_pm10_grade_1h) / count(*), 1)
        FROM measurement WHERE pm10_grade_1h IS NOT NULL AND our_pm10_grade_1h IS NOT NULL
        UNION ALL
        SELECT 'pm25Grade1h', 'pm25_grade_1h', 'our_pm25_grade_1h', count(*), sum(pm25_grade_1h = our_pm25_grade_1h),
               round(100.0 * sum(pm25_grade_1h = our_pm25_grade_1h) / count(*), 1)
        FROM measurement WHERE pm25_grade_1h IS NOT NULL AND our_pm25_grade_1h IS NOT NULL
        UNION ALL
        SELECT 'khaiGrade', 'khai_grade', 'cai_grade', count(*), sum(khai_grade = cai_grade),
               round(100.0 * sum(khai_grade = cai_grade) / count(*), 1)
        FROM measurement WHERE khai_grade IS NOT NULL AND cai_grade IS NOT NULL;
    """
}

/// Keeps the `province` and `province_alias` tables equal to `Province.all`: rows are inserted
/// or corrected, and names no longer listed removed. Run by migration v9; a later change to
/// `Province.all` comes with a migration that runs it again.
enum ProvinceReference {
    static func sync(_ db: Database) throws {
        for province in Province.all {
            try db.execute(sql: """
                INSERT INTO province (code, short_name, official_name, english_name) VALUES (?, ?, ?, ?)
                ON CONFLICT (code) DO UPDATE SET short_name = excluded.short_name,
                    official_name = excluded.official_name, english_name = excluded.english_name
                """, arguments: [province.code, province.shortName, province.officialName, province.englishName])
        }
        try db.execute(sql: "DELETE FROM province_alias")
        for province in Province.all {
            for alias in province.aliases {
                try db.execute(sql: "INSERT INTO province_alias (name, province_code, kind) VALUES (?, ?, ?)",
                               arguments: [alias.name, province.code, alias.kind.rawValue])
            }
        }
        let codes = Province.all.map(\.code)
        try db.execute(sql: "DELETE FROM province WHERE code NOT IN (\(codes.map { _ in "?" }.joined(separator: ", ")))",
                       arguments: StatementArguments(codes))
    }
}
