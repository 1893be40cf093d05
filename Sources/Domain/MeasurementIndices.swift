/// What feedline computes itself for one hourly measurement, beside what AirKorea published:
/// Korean grades (tables in force at the measurement's date), the CAI and the US EPA AQI.
///
/// Produced by the transform stage; stored in the `our_*`, `cai*` and `aqi_*` columns of
/// `measurement`, where the `grade_agreement` view compares them with AirKorea's grades.
public struct MeasurementIndices: Hashable, Sendable {
    /// Korean grades of the 24-hour values (`pm24h`), comparable with `pm10Grade`/`pm25Grade`.
    public var koreanGrade24h: DustPair<AirKoreaGrade?>
    /// Korean grades of the hourly values (`pm`), comparable with `pm10Grade1h`/`pm25Grade1h`.
    public var koreanGrade1h: DustPair<AirKoreaGrade?>
    /// The overall CAI (PM from 24-hour values, gases hourly); nil unless PM10, PM2.5, NO2 and
    /// O3 are all present (AirKorea's own rule).
    public var cai: IndexResult?
    /// The grade of `cai`.
    public var caiGrade: AirKoreaGrade?
    /// US EPA AQI of the 24-hour PM values (2024 table from 2024-05-06, the earlier one before).
    public var aqi: DustPair<IndexResult?>

    /// Computes every index the values allow, with the tables in force on `date`: PM hourly
    /// (`pm`) and 24-hour (`pm24h`) in µg/m³, the gases as 1-hour ppm.
    public init(on date: LocalDate, pm: DustPair<Double?>, pm24h: DustPair<Double?>,
                o3ppm: Double?, no2ppm: Double?, coppm: Double?, so2ppm: Double?) {
        koreanGrade24h = DustPair(
            pm10: pm24h.pm10.flatMap { KoreanGrading.grade(.pm10, microgramsPerCubicMetre: $0, on: date) },
            pm25: pm24h.pm25.flatMap { KoreanGrading.grade(.pm25, microgramsPerCubicMetre: $0, on: date) })
        koreanGrade1h = DustPair(
            pm10: pm.pm10.flatMap { KoreanGrading.grade(.pm10, microgramsPerCubicMetre: $0, on: date) },
            pm25: pm.pm25.flatMap { KoreanGrading.grade(.pm25, microgramsPerCubicMetre: $0, on: date) })
        let result = KoreanCAI.evaluate(PollutantValues(pm10: pm24h.pm10, pm25: pm24h.pm25,
                                                        o3: o3ppm, no2: no2ppm, co: coppm, so2: so2ppm))
        cai = result.isComplete ? result.overall : nil
        caiGrade = cai.map(KoreanCAI.grade)
        aqi = DustPair(
            pm10: pm24h.pm10.flatMap { EPAAQI.index(.pm10, microgramsPerCubicMetre: $0, on: date) },
            pm25: pm24h.pm25.flatMap { EPAAQI.index(.pm25, microgramsPerCubicMetre: $0, on: date) })
    }
}
