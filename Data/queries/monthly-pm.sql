-- Monthly PM10/PM2.5 means per station (KST months), with days and hours behind each mean.
-- param station = null   station name such as 종로구; null for every station
SELECT station_name, sido, kst_month, days, hours,
       pm10_hours, round(pm10_avg, 1) AS pm10_avg, pm10_max,
       pm25_hours, round(pm25_avg, 1) AS pm25_avg, pm25_max
FROM measurement_monthly
WHERE :station IS NULL OR station_name = :station
ORDER BY station_name, kst_month;
