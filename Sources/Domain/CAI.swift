import Foundation

/// Korean Comprehensive Air-quality Index, CAI (통합대기환경지수, AirKorea `khaiValue`).
///
/// Sub-index formula `Ip = (IHI − ILO)/(BPHI − BPLO) × (Cp − BPLO) + ILO`
/// (http://air.jeju.go.kr/contents/atmospheric/cai/summary.htm). Breakpoints from
/// `atmotube/aqipy aqipy/cai_kr.py`, which cites airkorea.or.kr/eng/khaiInfo (DOMAIN.md §6.3):
///
/// | index | 좋음 0–50 | 보통 51–100 | 나쁨 101–250 | 매우나쁨 251–500 |
/// | --- | --- | --- | --- | --- |
/// | PM10 24 h, µg/m³ | 0–30 | 31–80 | 81–150 | 151–600 |
/// | PM2.5 24 h, µg/m³ | 0–15 | 16–35 | 36–75 | 76–500 |
/// | O3 1 h, ppm | 0–0.030 | 0.031–0.090 | 0.091–0.150 | 0.151–0.6 |
/// | NO2 1 h, ppm | 0–0.030 | 0.031–0.060 | 0.061–0.200 | 0.201–2.0 |
/// | CO 1 h, ppm | 0–2.00 | 2.01–9.00 | 9.01–15.00 | 15.01–50 |
/// | SO2 1 h, ppm | 0–0.020 | 0.021–0.050 | 0.051–0.150 | 0.151–1.0 |
///
/// Concentrations are truncated to the precision of the breakpoints (whole µg/m³; 0.001 ppm;
/// 0.01 ppm for CO) under `TableTruncation`, the sub-index is rounded to the nearest whole number, and a value above the
/// top breakpoint is `.beyondScale`, not extrapolated. PM inputs are AirKorea's 24-h predicted
/// moving concentrations (`pm10Value24`, `pm25Value24`); gases are 1-h values.
///
/// The overall CAI is the highest sub-index. Older AirKorea text adds 50 when two pollutants are
/// 나쁨 or worse and 75 when three or more are; that rule is unverified (DOMAIN.md §6.3) and is
/// **not** applied here.
public enum KoreanCAI {
    /// The index bands shared by every row: 좋음, 보통, 나쁨, 매우나쁨.
    static let indexBands = [(0, 50), (51, 100), (101, 250), (251, 500)]

    static func table(_ name: String, _ pollutant: Pollutant, _ unitsPerWhole: Int, _ concentrations: [(Double, Double)]) -> BreakpointTable {
        let rows = zip(concentrations, indexBands).map { c, i in (c.0, c.1, i.0, i.1) }
        return BreakpointTable(name: "CAI \(name)", pollutant: pollutant, unitsPerWhole: unitsPerWhole, rows: rows)
    }

    /// PM10, 24-h µg/m³, whole µg/m³.
    public static let pm10 = table("PM10", .pm10, 1, [(0, 30), (31, 80), (81, 150), (151, 600)])
    /// PM2.5, 24-h µg/m³, whole µg/m³.
    public static let pm25 = table("PM2.5", .pm25, 1, [(0, 15), (16, 35), (36, 75), (76, 500)])
    /// O3, 1-h ppm, 0.001 ppm.
    public static let o3 = table("O3", .o3, 1000, [(0, 0.030), (0.031, 0.090), (0.091, 0.150), (0.151, 0.6)])
    /// NO2, 1-h ppm, 0.001 ppm.
    public static let no2 = table("NO2", .no2, 1000, [(0, 0.030), (0.031, 0.060), (0.061, 0.200), (0.201, 2.0)])
    /// CO, 1-h ppm, 0.01 ppm.
    public static let co = table("CO", .co, 100, [(0, 2.00), (2.01, 9.00), (9.01, 15.00), (15.01, 50)])
    /// SO2, 1-h ppm, 0.001 ppm.
    public static let so2 = table("SO2", .so2, 1000, [(0, 0.020), (0.021, 0.050), (0.051, 0.150), (0.151, 1.0)])

    /// The breakpoint table for `pollutant`.
    public static func table(for pollutant: Pollutant) -> BreakpointTable {
        switch pollutant {
        case .pm10: pm10
        case .pm25: pm25
        case .o3: o3
        case .no2: no2
        case .co: co
        case .so2: so2
        }
    }

    /// The sub-index of `concentration` (µg/m³ for PM, ppm for gases): nil when negative or not
    /// a number, `.beyondScale` above the top breakpoint (+∞ included).
    public static func subIndex(_ pollutant: Pollutant, _ concentration: Double) -> IndexResult? {
        // Each table read in place: `table(for:)` returns a copy (its name and rows retained and
        // released), and this runs for up to six pollutants of every measurement.
        switch pollutant {
        case .pm10: pm10.index(concentration)
        case .pm25: pm25.index(concentration)
        case .o3: o3.index(concentration)
        case .no2: no2.index(concentration)
        case .co: co.index(concentration)
        case .so2: so2.index(concentration)
        }
    }

    /// The grade of a whole CAI value: 0–50 좋음, 51–100 보통, 101–250 나쁨, ≥251 매우나쁨;
    /// nil when negative.
    public static func grade(index: Int) -> AirKoreaGrade? {
        switch index {
        case ..<0: nil
        case 0...50: .good
        case 51...100: .moderate
        case 101...250: .bad
        default: .veryBad
        }
    }

    /// The grade of an index result; `.beyondScale` is 매우나쁨.
    public static func grade(_ result: IndexResult) -> AirKoreaGrade {
        switch result {
        case .index(let value): grade(index: value) ?? .good
        case .beyondScale: .veryBad
        }
    }

    /// The grade of a published CAI (`khaiValue`), truncated to a whole number first
    /// (`TableTruncation`); nil when negative or not a number, 매우나쁨 for +∞.
    public static func grade(khai: Double) -> AirKoreaGrade? {
        switch TableTruncation.truncate(khai, cap: 251) {
        case nil: nil
        case .atOrAboveCap: .veryBad
        case .units(let index): grade(index: index)
        }
    }

    /// Pollutants AirKorea requires for an overall CAI (DOMAIN.md §6.3: PM10, PM2.5, NO2, O3).
    public static let requiredPollutants: [Pollutant] = [.pm10, .pm25, .no2, .o3]

    /// Sub-indices and the overall CAI from concentrations (PM as 24-h µg/m³, gases as 1-h ppm).
    public static func evaluate(_ concentrations: PollutantValues<Double>) -> CAIResult {
        var subIndices = PollutantValues<IndexResult>()
        for pollutant in Pollutant.allCases {
            if let c = concentrations[pollutant] { subIndices[pollutant] = subIndex(pollutant, c) }
        }
        return CAIResult(subIndices: subIndices)
    }
}

/// The sub-indices of one set of concentrations and the overall CAI (the highest sub-index).
public struct CAIResult: Hashable, Sendable {
    /// Each pollutant's sub-index; nil where the concentration was missing or invalid.
    public let subIndices: PollutantValues<IndexResult>

    public init(subIndices: PollutantValues<IndexResult>) { self.subIndices = subIndices }

    /// The highest sub-index present (`.beyondScale` above any index); nil when none is present.
    /// No +50/+75 adjustment is applied.
    public var overall: IndexResult? {
        // A running maximum: this runs for every stored measurement, and collecting the
        // sub-indices into an array first allocated one per row.
        var highest: IndexResult?
        for pollutant in Pollutant.allCases {
            if let index = subIndices[pollutant], highest.map({ index > $0 }) ?? true { highest = index }
        }
        return highest
    }

    /// The pollutants whose sub-index equals the overall CAI.
    public var dominantPollutants: [Pollutant] {
        guard let overall else { return [] }
        return Pollutant.allCases.filter { subIndices[$0] == overall }
    }

    /// True when every pollutant AirKorea requires (PM10, PM2.5, NO2, O3) has a sub-index.
    public var isComplete: Bool { KoreanCAI.requiredPollutants.allSatisfy { subIndices[$0] != nil } }

    /// The grade of the overall CAI; nil when no sub-index is present.
    public var grade: AirKoreaGrade? { overall.map(KoreanCAI.grade) }
}
