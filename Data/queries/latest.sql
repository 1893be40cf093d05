-- Newest hour of every station (PM in µg/m³, KST hour start), optionally for one province.
-- param sido = null      province (시도) such as 서울; null for every province
SELECT l.station_name, coalesce(l.sido, s.sido) AS sido, l.kst_date, l.kst_hour, l.data_time,
       l.pm10, l.pm25, l.pm10_grade_1h, l.pm25_grade_1h, l.khai, l.pm10_flag, l.pm25_flag
FROM measurement_latest l LEFT JOIN station s ON s.name = l.station_name
WHERE :sido IS NULL OR coalesce(l.sido, s.sido) = :sido
ORDER BY sido, l.station_name;
