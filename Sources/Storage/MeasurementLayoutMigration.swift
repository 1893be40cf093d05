import GRDB

/// v7: the measurement table becomes an ordinary rowid table with a UNIQUE (station_name,
/// observed_at) constraint instead of a WITHOUT ROWID table keyed by the same pair.
///
/// Feeds deliver an hour for every station at a time, while a table clustered by station puts
/// each of those rows on a different page: every insert moved ~270-byte rows around inside a
/// page and split pages all over the table. As a rowid table the rows are appended in arrival
/// order and only the narrow key index takes the scattered inserts; a load writes about a fifth
/// faster and half as much to disk. Lookups by station and hour go through the UNIQUE index,
/// and `ON CONFLICT (station_name, observed_at)` upserts work as before. Columns, their order,
/// their checks, every view, and any index or trigger a user added on the table are kept.
enum MeasurementLayoutMigration {
    static func migrate(_ db: Database) throws {
        // Views that read measurement would stop the table from being dropped and renamed:
        // set them all aside and put them back, in creation order, from their own SQL.
        let views = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY rowid")
            .map { (name: $0["name"] as String, sql: $0["sql"] as String) }
        // Indexes and triggers people added to measurement for their own queries go with the old
        // table: keep their SQL to create them again on the new one.
        let attached = try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_master
            WHERE tbl_name = 'measurement' AND type IN ('index', 'trigger') AND sql IS NOT NULL AND name <> 'measurement_by_kst'
            ORDER BY type, rowid
            """)
        for view in views { try db.execute(sql: "DROP VIEW \(view.name.quotedDatabaseIdentifier)") }
        try db.execute(sql: measurementTable)
        try db.execute(sql: """
            INSERT INTO measurement_v7 SELECT \(columns) FROM measurement ORDER BY observed_at, station_name;
            DROP TABLE measurement;
            ALTER TABLE measurement_v7 RENAME TO measurement;
            CREATE INDEX measurement_by_kst ON measurement (kst_date, kst_hour);
            """)
        for sql in attached { try db.execute(sql: sql) }
        for view in views { try db.execute(sql: view.sql) }
    }

    static let columns = """
        station_name, observed_at, kst_date, kst_hour, data_time, sido, network, \
        pm10, pm25, pm10_24h, pm25_24h, o3, no2, co, so2, khai, \
        pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h, o3_grade, no2_grade, co_grade, so2_grade, khai_grade, \
        pm10_flag, pm25_flag, o3_flag, no2_flag, co_flag, so2_flag, payload_sha256, revision, \
        our_pm10_grade, our_pm25_grade, our_pm10_grade_1h, our_pm25_grade_1h, cai, cai_grade, aqi_pm10, aqi_pm25
        """

    static let measurementTable = """
    -- One row per station per hour. AirKorea labels an hour by its end (01..24); observed_at
    -- is that end as a UTC instant, kst_date/kst_hour the start of the hour in Asia/Seoul.
    -- PM in µg/m³, gases in ppm; NULL means missing (never 0). Grades 1 좋음 .. 4 매우나쁨.
    CREATE TABLE measurement_v7 (
        station_name    TEXT NOT NULL,
        observed_at     TEXT NOT NULL,
        kst_date        TEXT NOT NULL,
        kst_hour        INTEGER NOT NULL CHECK (kst_hour BETWEEN 0 AND 23),
        data_time       TEXT NOT NULL,          -- AirKorea's label, verbatim
        sido            TEXT,
        network         TEXT,
        pm10            REAL CHECK (pm10 >= 0),
        pm25            REAL CHECK (pm25 >= 0),
        pm10_24h        REAL CHECK (pm10_24h >= 0),
        pm25_24h        REAL CHECK (pm25_24h >= 0),
        o3              REAL CHECK (o3 >= 0),
        no2             REAL CHECK (no2 >= 0),
        co              REAL CHECK (co >= 0),
        so2             REAL CHECK (so2 >= 0),
        khai            REAL CHECK (khai >= 0),
        pm10_grade      INTEGER CHECK (pm10_grade BETWEEN 1 AND 4),
        pm25_grade      INTEGER CHECK (pm25_grade BETWEEN 1 AND 4),
        pm10_grade_1h   INTEGER CHECK (pm10_grade_1h BETWEEN 1 AND 4),
        pm25_grade_1h   INTEGER CHECK (pm25_grade_1h BETWEEN 1 AND 4),
        o3_grade        INTEGER CHECK (o3_grade BETWEEN 1 AND 4),
        no2_grade       INTEGER CHECK (no2_grade BETWEEN 1 AND 4),
        co_grade        INTEGER CHECK (co_grade BETWEEN 1 AND 4),
        so2_grade       INTEGER CHECK (so2_grade BETWEEN 1 AND 4),
        khai_grade      INTEGER CHECK (khai_grade BETWEEN 1 AND 4),
        pm10_flag       TEXT,
        pm25_flag       TEXT,
        o3_flag         TEXT,
        no2_flag        TEXT,
        co_flag         TEXT,
        so2_flag        TEXT,
        payload_sha256  TEXT,                   -- the payload that last changed the row
        revision        INTEGER NOT NULL DEFAULT 0,  -- times the row changed after insert
        our_pm10_grade  INTEGER CHECK (our_pm10_grade BETWEEN 1 AND 4),
        our_pm25_grade  INTEGER CHECK (our_pm25_grade BETWEEN 1 AND 4),
        our_pm10_grade_1h INTEGER CHECK (our_pm10_grade_1h BETWEEN 1 AND 4),
        our_pm25_grade_1h INTEGER CHECK (our_pm25_grade_1h BETWEEN 1 AND 4),
        cai             INTEGER,                -- overall CAI, NULL unless PM10, PM2.5, NO2, O3 present
        cai_grade       INTEGER CHECK (cai_grade BETWEEN 1 AND 4),
        aqi_pm10        INTEGER,                -- US EPA AQI of the 24-h PM10 value
        aqi_pm25        INTEGER,                -- US EPA AQI of the 24-h PM2.5 value (2024 table)
        UNIQUE (station_name, observed_at)
    )
    """
}
