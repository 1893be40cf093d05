-- Daily PM10/PM2.5 means per station (KST days), with the hours behind each mean.
-- param station = null   station name such as 종로구; null for every station
-- param from = '0000-01-01'   first KST date (YYYY-MM-DD)
-- param to = '9999-12-31'     last KST date (YYYY-MM-DD)
SELECT station_name, sido, kst_date, hours,
       pm10_hours, round(pm10_avg, 1) AS pm10_avg, pm10_max,
       pm25_hours, round(pm25_avg, 1) AS pm25_avg, pm25_max
FROM measurement_daily
WHERE (:station IS NULL OR station_name = :station) AND kst_date BETWEEN :from AND :to
ORDER BY station_name, kst_date;
