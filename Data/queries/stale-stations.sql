-- Stations whose newest measurement is older than :hours hours, stalest first (times are UTC).
-- param hours = 3        age limit in hours
-- param now = null       reference instant as YYYY-MM-DDTHH:MM:SSZ; null for the current time
SELECT station_name, sido, newest_observed_at,
       round((julianday(coalesce(:now, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))) - julianday(newest_observed_at)) * 24, 1) AS age_hours,
       hours
FROM station_freshness
WHERE julianday(newest_observed_at) < julianday(coalesce(:now, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))) - :hours / 24.0
ORDER BY newest_observed_at, station_name;
