extension FeedlineMigrations {
    /// Indices feedline derives itself (transform stage), the grade agreement view, and the
    /// exposure (intake) tables and views.
    static let derivedV3 = """
    ALTER TABLE measurement ADD COLUMN our_pm10_grade INTEGER CHECK (our_pm10_grade BETWEEN 1 AND 4);
    ALTER TABLE measurement ADD COLUMN our_pm25_grade INTEGER CHECK (our_pm25_grade BETWEEN 1 AND 4);
    ALTER TABLE measurement ADD COLUMN our_pm10_grade_1h INTEGER CHECK (our_pm10_grade_1h BETWEEN 1 AND 4);
    ALTER TABLE measurement ADD COLUMN our_pm25_grade_1h INTEGER CHECK (our_pm25_grade_1h BETWEEN 1 AND 4);
    ALTER TABLE measurement ADD COLUMN cai INTEGER;           -- overall CAI, NULL unless PM10, PM2.5, NO2, O3 present
    ALTER TABLE measurement ADD COLUMN cai_grade INTEGER CHECK (cai_grade BETWEEN 1 AND 4);
    ALTER TABLE measurement ADD COLUMN aqi_pm10 INTEGER;      -- US EPA AQI of the 24-h PM10 value
    ALTER TABLE measurement ADD COLUMN aqi_pm25 INTEGER;      -- US EPA AQI of the 24-h PM2.5 value (2024 table)

    -- How often AirKorea's published grades agree with the ones feedline computes.
    CREATE VIEW grade_agreement AS
        SELECT 'pm10Grade' AS field, count(*) AS checked, sum(pm10_grade = our_pm10_grade) AS agreeing,
               round(100.0 * sum(pm10_grade = our_pm10_grade) / count(*), 1) AS agreement_pct
        FROM measurement WHERE pm10_grade IS NOT NULL AND our_pm10_grade IS NOT NULL
        UNION ALL
        SELECT 'pm25Grade', count(*), sum(pm25_grade = our_pm25_grade), round(100.0 * sum(pm25_grade = our_pm25_grade) / count(*), 1)
        FROM measurement WHERE pm25_grade IS NOT NULL AND our_pm25_grade IS NOT NULL
        UNION ALL
        SELECT 'pm10Grade1h', count(*), sum(pm10_grade_1h = our_pm10_grade_1h), round(100.0 * sum(pm10_grade_1h = our_pm10_grade_1h) / count(*), 1)
        FROM measurement WHERE pm10_grade_1h IS NOT NULL AND our_pm10_grade_1h IS NOT NULL
        UNION ALL
        SELECT 'pm25Grade1h', count(*), sum(pm25_grade_1h = our_pm25_grade_1h), round(100.0 * sum(pm25_grade_1h = our_pm25_grade_1h) / count(*), 1)
        FROM measurement WHERE pm25_grade_1h IS NOT NULL AND our_pm25_grade_1h IS NOT NULL
        UNION ALL
        SELECT 'khaiGrade', count(*), sum(khai_grade = cai_grade), round(100.0 * sum(khai_grade = cai_grade) / count(*), 1)
        FROM measurement WHERE khai_grade IS NOT NULL AND cai_grade IS NOT NULL;

    -- Activity profiles: inhalation rates from the US EPA Exposure Factors Handbook (2011),
    -- Chapter 6, Table 6-2, adults 21 to <31, males and females combined (m³/h).
    CREATE TABLE activity_profile (
        name                TEXT PRIMARY KEY,
        inhalation_m3_per_h REAL NOT NULL CHECK (inhalation_m3_per_h > 0),
        description         TEXT NOT NULL,
        source              TEXT NOT NULL
    );
    INSERT INTO activity_profile VALUES
        ('sedentary', 0.25, 'sedentary / passive (METs <= 1.5)', 'EPA EFH 2011 Table 6-2, ages 21-<31'),
        ('light',     0.72, 'light intensity (1.5 < METs <= 3.0)', 'EPA EFH 2011 Table 6-2, ages 21-<31'),
        ('moderate',  1.56, 'moderate intensity, e.g. brisk walking (3.0 < METs <= 6.0)', 'EPA EFH 2011 Table 6-2, ages 21-<31'),
        ('high',      3.00, 'high intensity (METs > 6.0)', 'EPA EFH 2011 Table 6-2, ages 21-<31');

    -- Inhaled PM (µg) per station, hour and activity profile, for one whole hour at that
    -- activity: concentration (µg/m³) × inhalation rate (m³/h) × 1 h. NULL where the hour's
    -- value is missing (never 0). Coarse = PM10 − PM2.5; PM10 and PM2.5 are never added.
    CREATE VIEW exposure_hourly AS
        SELECT m.station_name, m.kst_date, m.kst_hour, p.name AS activity, p.inhalation_m3_per_h,
               m.pm10 * p.inhalation_m3_per_h AS pm10_ug,
               m.pm25 * p.inhalation_m3_per_h AS pm25_ug,
               CASE WHEN m.pm25 <= m.pm10 THEN (m.pm10 - m.pm25) * p.inhalation_m3_per_h END AS coarse_ug
        FROM measurement m CROSS JOIN activity_profile p;

    -- Daily totals with completeness: hours with data out of 24.
    CREATE VIEW exposure_daily AS
        SELECT station_name, kst_date, activity,
               sum(pm10_ug) AS pm10_ug, count(pm10_ug) AS pm10_hours,
               sum(pm25_ug) AS pm25_ug, count(pm25_ug) AS pm25_hours,
               24 AS hours_expected
        FROM exposure_hourly GROUP BY station_name, kst_date, activity;

    -- Seven days ending on kst_date (D-6 … D): week totals, today's share of the week
    -- (today ÷ max(week, 1)) and the daily average (week ÷ 7), with hours of data out of 168.
    CREATE VIEW exposure_weekly AS
        SELECT d.station_name, d.kst_date AS week_ending, d.activity,
               w.pm10_ug AS week_pm10_ug, w.pm10_hours AS week_pm10_hours,
               w.pm25_ug AS week_pm25_ug, w.pm25_hours AS week_pm25_hours, 168 AS hours_expected,
               coalesce(d.pm10_ug, 0) / max(coalesce(w.pm10_ug, 0), 1) AS today_pm10_ratio,
               coalesce(d.pm25_ug, 0) / max(coalesce(w.pm25_ug, 0), 1) AS today_pm25_ratio,
               w.pm10_ug / 7.0 AS avg_pm10_ug, w.pm25_ug / 7.0 AS avg_pm25_ug
        FROM exposure_daily d
        JOIN (SELECT a.station_name, a.kst_date, a.activity,
                     sum(b.pm10_ug) AS pm10_ug, sum(b.pm10_hours) AS pm10_hours,
                     sum(b.pm25_ug) AS pm25_ug, sum(b.pm25_hours) AS pm25_hours
              FROM exposure_daily a JOIN exposure_daily b
                ON b.station_name = a.station_name AND b.activity = a.activity
               AND b.kst_date BETWEEN date(a.kst_date, '-6 days') AND a.kst_date
              GROUP BY a.station_name, a.kst_date, a.activity) w
          ON w.station_name = d.station_name AND w.kst_date = d.kst_date AND w.activity = d.activity;
    """
}
