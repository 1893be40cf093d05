-- Monthly PM10/PM2.5 means per province, with station, day and hour counts.
-- param sido = null      province (시도) such as 서울; null for every province
SELECT sido, kst_month, stations, days, station_hours,
       pm10_hours, round(pm10_avg, 1) AS pm10_avg, pm10_max,
       pm25_hours, round(pm25_avg, 1) AS pm25_avg, pm25_max
FROM province_monthly
WHERE :sido IS NULL OR sido = :sido
ORDER BY sido, kst_month;
