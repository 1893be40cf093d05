extension FeedlineMigrations {
    /// Run control: calls counted per API key per day (for quota awareness) and the
    /// completeness of measurements per station and day (for backfill).
    static let quotaV6 = """
    -- Calls made per feed API, key and day in Asia/Seoul (data.go.kr resets quotas at midnight
    -- KST). The key is named by its environment variable and told apart by a one-way fingerprint
    -- (12 hex digits of SHA-256): the key itself is never stored. Every attempt counts, retries
    -- included; a row is raised to the limit when the API answers that the quota is used up.
    CREATE TABLE api_call (
        source              TEXT NOT NULL,          -- feed, e.g. airkorea
        api                 TEXT NOT NULL,          -- the API (service) counted, e.g. ArpltnInforInqireSvc
        credential_variable TEXT NOT NULL,          -- e.g. AIRKOREA_SERVICE_KEY
        key_fingerprint     TEXT NOT NULL,
        kst_date            TEXT NOT NULL,          -- YYYY-MM-DD in Asia/Seoul
        calls               INTEGER NOT NULL DEFAULT 0 CHECK (calls >= 0),
        PRIMARY KEY (source, api, credential_variable, key_fingerprint, kst_date)
    ) WITHOUT ROWID;

    -- Hours present per station and KST day, out of 24: what backfill fills in. hours_mask has
    -- bit h set when the hour starting at h:00 KST has a row (even one whose values are all
    -- missing: AirKorea answered for it). Days without any row do not appear.
    CREATE VIEW measurement_completeness AS
        SELECT station_name, kst_date,
               count(*) AS hours_present,
               24 AS hours_expected,
               24 - count(*) AS hours_missing,
               count(pm10) AS pm10_hours,
               count(pm25) AS pm25_hours,
               sum(1 << kst_hour) AS hours_mask
        FROM measurement
        GROUP BY station_name, kst_date;
    """
}
