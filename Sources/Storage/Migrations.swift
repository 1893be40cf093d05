import GRDB
import Pipeline

/// The schema, as numbered migrations. A migration that has landed is never edited: changes
/// come as new migrations appended here.
enum FeedlineMigrations {
    /// The migrations that built older files (feedline's history, then the released feed
    /// migrations and earlier declared steps, which later files no longer run), the declared step that brings any file to
    /// the declared schema (`SQLiteSchema`), then `schema`'s raw SQLite migrations. Throws
    /// `SchemaMigrationError` when an identifier is used twice (GRDB would stop the process).
    static func migrator(with schema: FeedSchema) throws -> DatabaseMigrator {
        var migrator = migrator
        for identifier in releasedFeedMigrations + releasedDeclaredSteps {
            migrator.registerMigration(identifier) { _ in }
        }
        let declarations = SQLiteSchema.declarations(schema)
        migrator.registerMigration(SQLiteSchema.declaredStep) { db in try SQLiteSchema.reconcile(db, to: declarations) }
        var seen = Set(migrator.migrations)
        for migration in schema.migrations where !seen.insert(migration.identifier).inserted {
            throw SchemaMigrationError(identifier: migration.identifier)
        }
        for migration in schema.migrations {
            migrator.registerMigration(migration.identifier) { db in try db.execute(sql: migration.sqlite) }
        }
        return migrator
    }

    /// The feeds' migrations released before their tables were declared: recorded in older
    /// files, and nothing to do now (the declared step creates whatever they would have).
    static let releasedFeedMigrations = [
        "airkorea-v1-station-stats-and-pm-alerts",
        "openweather-v1-air-pollution-and-weather",
        "openweather-v2-place",
        "openaq-v1-locations-sensors-latest-hourly",
        "cross-source-v1-air-quality-hourly",
    ]

    /// The declared schema's earlier steps: recorded in files they built, and nothing to do now
    /// (the current `SQLiteSchema.declaredStep` brings those files to the declaration).
    static let releasedDeclaredSteps = ["declared-v1", "declared-v2"]

    /// Every released identifier a new file records as applied without running.
    static let released: Set<String> = Set(migrator.migrations + releasedFeedMigrations + releasedDeclaredSteps)

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-ledger-and-air-quality") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2-careers") { db in try db.execute(sql: careerV2) }
        migrator.registerMigration("v3-derived-indices-and-exposure") { db in
            try db.execute(sql: derivedV3)
        }
        migrator.registerMigration("v4-run-locks") { db in try db.execute(sql: locksV4) }
        migrator.registerMigration("v5-query-views") { db in try db.execute(sql: queryViewsV5) }
        migrator.registerMigration("v6-quota-and-completeness") { db in try db.execute(sql: quotaV6) }
        migrator.registerMigration("v7-measurement-rowid-layout") { db in try MeasurementLayoutMigration.migrate(db) }
        migrator.registerMigration("v8-run-abandoned-host-pid") { db in try RunLedgerMigration.migrate(db) }
        migrator.registerMigration("v9-province-reference") { db in try ProvinceMigration.migrate(db) }
        migrator.registerMigration("v10-check-results") { db in try db.execute(sql: checksV10) }
        migrator.registerMigration("v11-schedule-slots") { db in try db.execute(sql: scheduleSlotsV11) }
        return migrator
    }

    static let v1 = """
    -- The run ledger: one row per run, committed 'running' first, then finished with the load.
    CREATE TABLE run (
        id              INTEGER PRIMARY KEY,
        pipeline        TEXT NOT NULL,
        mode            TEXT NOT NULL CHECK (mode IN ('live', 'fixtures', 'replay')),
        started_at      TEXT NOT NULL,          -- UTC, ISO-8601
        finished_at     TEXT,
        status          TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
        payloads        INTEGER NOT NULL DEFAULT 0,
        payloads_skipped INTEGER NOT NULL DEFAULT 0,  -- same bytes already loaded earlier
        rows_inserted   INTEGER NOT NULL DEFAULT 0,
        rows_updated    INTEGER NOT NULL DEFAULT 0,
        rows_unchanged  INTEGER NOT NULL DEFAULT 0,
        diagnostics     INTEGER NOT NULL DEFAULT 0,
        error           TEXT
    );
    CREATE INDEX run_by_pipeline ON run (pipeline, started_at);

    -- Archive index: every payload a successful run loaded, by content hash.
    CREATE TABLE payload (
        sha256          TEXT PRIMARY KEY,
        source          TEXT,
        operation       TEXT,
        format          TEXT NOT NULL,
        request_url     TEXT,                   -- redacted: the key never appears
        fetched_at      TEXT NOT NULL,
        http_status     INTEGER,
        content_type    TEXT,
        byte_count      INTEGER NOT NULL,
        item_count      INTEGER NOT NULL,
        archive_path    TEXT,
        run_id          INTEGER NOT NULL REFERENCES run (id)
    );

    -- What was odd, where, and why: never silently dropped.
    CREATE TABLE diagnostic (
        id              INTEGER PRIMARY KEY,
        run_id          INTEGER NOT NULL REFERENCES run (id),
        payload_sha256  TEXT,
        code            TEXT NOT NULL,
        message         TEXT NOT NULL,
        location        TEXT NOT NULL,
        value           TEXT
    );
    CREATE INDEX diagnostic_by_run ON diagnostic (run_id);

    CREATE TABLE bookmark (
        pipeline        TEXT NOT NULL,
        name            TEXT NOT NULL,
        value           TEXT NOT NULL,
        run_id          INTEGER NOT NULL REFERENCES run (id),
        PRIMARY KEY (pipeline, name)
    );

    -- AirKorea stations. Filled by the station list and completed by measurements
    -- (code, province, network); a later NULL never erases a known value.
    CREATE TABLE station (
        name            TEXT PRIMARY KEY,
        code            TEXT,
        sido            TEXT,
        address         TEXT,
        network         TEXT,
        installed_year  INTEGER,
        items           TEXT,
        latitude        REAL CHECK (latitude BETWEEN -90 AND 90),
        longitude       REAL CHECK (longitude BETWEEN -180 AND 180)
    );

    -- One row per station per hour. AirKorea labels an hour by its end (01..24); observed_at
    -- is that end as a UTC instant, kst_date/kst_hour the start of the hour in Asia/Seoul.
    -- PM in µg/m³, gases in ppm; NULL means missing (never 0). Grades 1 좋음 .. 4 매우나쁨.
    CREATE TABLE measurement (
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
        PRIMARY KEY (station_name, observed_at)
    ) WITHOUT ROWID;
    CREATE INDEX measurement_by_kst ON measurement (kst_date, kst_hour);

    -- Dust forecasts: one row per pollutant, forecast day and release.
    CREATE TABLE forecast (
        inform_code     TEXT NOT NULL,          -- PM10, PM25, O3
        forecast_date   TEXT NOT NULL,
        released_at     TEXT NOT NULL,          -- KST 'YYYY-MM-DD HH:00' of the release
        overall         TEXT,
        cause           TEXT,
        action_knack    TEXT,
        image_urls      TEXT,                   -- JSON array of imageUrl1..9 (null where absent)
        payload_sha256  TEXT,
        revision        INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (inform_code, forecast_date, released_at)
    );
    -- informGrade split into one row per region.
    CREATE TABLE forecast_region (
        inform_code     TEXT NOT NULL,
        forecast_date   TEXT NOT NULL,
        released_at     TEXT NOT NULL,
        region          TEXT NOT NULL,
        grade_text      TEXT NOT NULL,          -- as published: 좋음, 보통, 나쁨, 매우나쁨, 예보없음
        grade           INTEGER CHECK (grade BETWEEN 1 AND 4),
        PRIMARY KEY (inform_code, forecast_date, released_at, region),
        FOREIGN KEY (inform_code, forecast_date, released_at)
            REFERENCES forecast (inform_code, forecast_date, released_at) ON DELETE CASCADE
    );
    -- The newest release for each pollutant and forecast day.
    CREATE VIEW forecast_latest AS
        SELECT f.* FROM forecast f
        WHERE f.released_at = (SELECT max(released_at) FROM forecast g
                               WHERE g.inform_code = f.inform_code AND g.forecast_date = f.forecast_date);

    -- Stations near a TM 중부원점 point (metres), with the distance in km.
    CREATE TABLE nearby_station (
        tm_x            REAL NOT NULL,
        tm_y            REAL NOT NULL,
        station_name    TEXT NOT NULL,
        address         TEXT,
        distance_km     REAL,
        PRIMARY KEY (tm_x, tm_y, station_name)
    );

    -- TM 중부원점 coordinates of 읍면동.
    CREATE TABLE tm_coordinate (
        sido            TEXT NOT NULL,
        sgg             TEXT NOT NULL,
        umd             TEXT NOT NULL,
        tm_x            REAL NOT NULL,
        tm_y            REAL NOT NULL,
        PRIMARY KEY (sido, sgg, umd)
    );

    -- Latest measurement per station.
    CREATE VIEW measurement_latest AS
        SELECT m.* FROM measurement m
        WHERE m.observed_at = (SELECT max(observed_at) FROM measurement n WHERE n.station_name = m.station_name);
    """
}

/// Two migrations, feedline's or a feed's, share an identifier: a programming error in a feed's
/// `FeedSchema`, reported before anything is opened.
public struct SchemaMigrationError: Error, CustomStringConvertible, Sendable {
    public let identifier: String
    public var description: String {
        "two migrations are called '\(identifier)': every migration a feed brings needs an identifier of its own (prefix it with the feed's name)."
    }
}
