-- Daily PM10/PM2.5 means per province (all station-hours with a value), with station and hour counts.
-- param sido = null      province (시도) such as 서울; null for every province
-- param from = '0000-01-01'   first KST date (YYYY-MM-DD)
-- param to = '9999-12-31'     last KST date (YYYY-MM-DD)
SELECT sido, kst_date, stations, station_hours,
       pm10_hours, round(pm10_avg, 1) AS pm10_avg, pm10_max,
       pm25_hours, round(pm25_avg, 1) AS pm25_avg, pm25_max
FROM province_daily
WHERE (:sido IS NULL OR sido = :sido) AND kst_date BETWEEN :from AND :to
ORDER BY sido, kst_date;
