-- Hours and days above the Korean 24-h standard (PM10 100, PM2.5 35 µg/m³) and the WHO 2021
-- 24-h guideline (PM10 45, PM2.5 15 µg/m³) per station over a date range. Hours: 1-hour values
-- above the level; days: daily means above it, counted only for days with at least 18 hours.
-- param station = null   station name; null for every station
-- param from = '0000-01-01'   first KST date (YYYY-MM-DD)
-- param to = '9999-12-31'     last KST date (YYYY-MM-DD)
SELECT station_name, sido, min(kst_date) AS first_date, max(kst_date) AS last_date,
       sum(pm10_hours) AS pm10_hours, sum(pm10_hours_over_kr) AS pm10_hours_over_kr, sum(pm10_hours_over_who) AS pm10_hours_over_who,
       sum(pm25_hours) AS pm25_hours, sum(pm25_hours_over_kr) AS pm25_hours_over_kr, sum(pm25_hours_over_who) AS pm25_hours_over_who,
       count(pm10_day_over_kr) AS pm10_days_judged, total(pm10_day_over_kr) AS pm10_days_over_kr, total(pm10_day_over_who) AS pm10_days_over_who,
       count(pm25_day_over_kr) AS pm25_days_judged, total(pm25_day_over_kr) AS pm25_days_over_kr, total(pm25_day_over_who) AS pm25_days_over_who
FROM exceedance_daily
WHERE (:station IS NULL OR station_name = :station) AND kst_date BETWEEN :from AND :to
GROUP BY station_name
ORDER BY pm25_hours_over_kr DESC, pm10_hours_over_kr DESC, station_name;
