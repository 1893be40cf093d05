extension FeedlineMigrations {
    /// Views for the common questions `feedline query` and `feedline report` answer: daily and
    /// monthly PM per station and per province (with hour counts), exceedances of the Korean
    /// 24-hour standard and the WHO 2021 24-hour guideline, station freshness and run history.
    ///
    /// Conventions: days and months are KST (`kst_date`, the start of the hour); means are over
    /// the hours that have a value (NULL never counts as 0), and every mean comes with the number
    /// of hours behind it. A province is `measurement.sido`, else the station's `sido`.
    ///
    /// Limits (µg/m³, 24-hour means): Korean 환경기준 PM10 100, PM2.5 35; WHO 2021 AQG PM10 45,
    /// PM2.5 15. An hour or day *exceeds* when its value is strictly above the limit. Hour counts
    /// compare 1-hour values with the 24-hour limits (an indicator of how many hours were above
    /// the level, not a legal exceedance); day flags compare the daily mean, and only when at
    /// least 18 of the 24 hours have a value (75 %), else NULL.
    static let queryViewsV5 = """
    -- Station × KST day: PM means, maxima and hours with a value.
    CREATE VIEW measurement_daily AS
        SELECT m.station_name, coalesce(max(m.sido), s.sido) AS sido, m.kst_date,
               count(*) AS hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        GROUP BY m.station_name, m.kst_date;

    -- Station × KST month ('YYYY-MM').
    CREATE VIEW measurement_monthly AS
        SELECT m.station_name, coalesce(max(m.sido), s.sido) AS sido, substr(m.kst_date, 1, 7) AS kst_month,
               count(DISTINCT m.kst_date) AS days, count(*) AS hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        GROUP BY m.station_name, substr(m.kst_date, 1, 7);

    -- Province × KST day: means over every station-hour with a value in the province.
    CREATE VIEW province_daily AS
        SELECT coalesce(m.sido, s.sido) AS sido, m.kst_date,
               count(DISTINCT m.station_name) AS stations, count(*) AS station_hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        WHERE coalesce(m.sido, s.sido) IS NOT NULL
        GROUP BY coalesce(m.sido, s.sido), m.kst_date;

    -- Province × KST month.
    CREATE VIEW province_monthly AS
        SELECT coalesce(m.sido, s.sido) AS sido, substr(m.kst_date, 1, 7) AS kst_month,
               count(DISTINCT m.station_name) AS stations, count(DISTINCT m.kst_date) AS days, count(*) AS station_hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        WHERE coalesce(m.sido, s.sido) IS NOT NULL
        GROUP BY coalesce(m.sido, s.sido), substr(m.kst_date, 1, 7);

    -- Station × KST day: hours above the Korean 24-h standard (PM10 100, PM2.5 35 µg/m³) and the
    -- WHO 2021 24-h guideline (PM10 45, PM2.5 15 µg/m³); day flags from the daily mean (≥ 18 h).
    CREATE VIEW exceedance_daily AS
        SELECT station_name, sido, kst_date, pm10_hours, pm25_hours, pm10_avg, pm25_avg,
               pm10_hours_over_kr, pm10_hours_over_who, pm25_hours_over_kr, pm25_hours_over_who,
               CASE WHEN pm10_hours >= 18 THEN pm10_avg > 100 END AS pm10_day_over_kr,
               CASE WHEN pm10_hours >= 18 THEN pm10_avg > 45 END AS pm10_day_over_who,
               CASE WHEN pm25_hours >= 18 THEN pm25_avg > 35 END AS pm25_day_over_kr,
               CASE WHEN pm25_hours >= 18 THEN pm25_avg > 15 END AS pm25_day_over_who
        FROM (
            SELECT m.station_name, coalesce(max(m.sido), s.sido) AS sido, m.kst_date,
                   count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg,
                   count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg,
                   count(CASE WHEN m.pm10 > 100 THEN 1 END) AS pm10_hours_over_kr,
                   count(CASE WHEN m.pm10 > 45 THEN 1 END) AS pm10_hours_over_who,
                   count(CASE WHEN m.pm25 > 35 THEN 1 END) AS pm25_hours_over_kr,
                   count(CASE WHEN m.pm25 > 15 THEN 1 END) AS pm25_hours_over_who
            FROM measurement m LEFT JOIN station s ON s.name = m.station_name
            GROUP BY m.station_name, m.kst_date
        );

    -- Station: its newest hour (UTC end of the hour, and the KST start), and its data share.
    CREATE VIEW station_freshness AS
        SELECT m.station_name, coalesce(max(m.sido), s.sido) AS sido,
               max(m.observed_at) AS newest_observed_at, min(m.observed_at) AS oldest_observed_at,
               count(*) AS hours, count(m.pm10) AS pm10_hours, count(m.pm25) AS pm25_hours
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        GROUP BY m.station_name;

    -- The ledger with durations (seconds) and row totals, newest first when ordered by id DESC.
    CREATE VIEW run_history AS
        SELECT id, pipeline, mode, status, started_at, finished_at,
               CAST(round((julianday(finished_at) - julianday(started_at)) * 86400) AS INTEGER) AS duration_s,
               payloads, payloads_skipped, rows_inserted, rows_updated, rows_unchanged,
               rows_inserted + rows_updated + rows_unchanged AS rows, diagnostics, error
        FROM run;

    -- The newest run of each pipeline.
    CREATE VIEW run_latest AS
        SELECT h.* FROM run_history h
        WHERE h.id = (SELECT max(id) FROM run r WHERE r.pipeline = h.pipeline);
    """
}
