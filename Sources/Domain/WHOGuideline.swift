import Foundation

/// The averaging period a WHO guideline level refers to.
public enum WHOAveragingPeriod: String, CaseIterable, Hashable, Sendable, Codable {
    /// 24-hour mean (the guideline is the 99th percentile: 3–4 exceedance days a year).
    case twentyFourHour
    /// Calendar-year mean.
    case annual
}

/// A WHO 2021 level, from the loosest interim target to the air-quality guideline itself.
public enum WHOLevel: Int, CaseIterable, Hashable, Sendable, Codable, Comparable {
    case interimTarget1 = 1, interimTarget2, interimTarget3, interimTarget4
    /// The air-quality guideline level (AQG).
    case guideline

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// `IT-1` … `IT-4`, `AQG`.
    public var shortName: String { self == .guideline ? "AQG" : "IT-\(rawValue)" }
}

/// WHO Global Air Quality Guidelines 2021 for particulate matter, µg/m³.
///
/// Source: WHO 2021, ISBN 9789240034228, as tabulated at
/// https://www.airclim.org/who-air-quality-guidelines (DOMAIN.md §6.5):
///
/// | pollutant | averaging | IT-1 | IT-2 | IT-3 | IT-4 | AQG |
/// | --- | --- | --- | --- | --- | --- | --- |
/// | PM2.5 | annual | 35 | 25 | 15 | 10 | 5 |
/// | PM2.5 | 24-h | 75 | 50 | 37.5 | 25 | 15 |
/// | PM10 | annual | 70 | 50 | 30 | 20 | 15 |
/// | PM10 | 24-h | 150 | 100 | 75 | 50 | 45 |
///
/// A level is *exceeded* when the concentration is strictly above it; no truncation is applied.
/// Invalid input follows the module's rule (`TableTruncation`): NaN and negative values are not
/// assessed, and +∞ exceeds every level.
/// One 24-h mean above the 24-h AQG is an exceedance day, not by itself a breach of the
/// guideline, which allows 3–4 such days a year.
public enum WHOGuideline2021 {
    /// The level, µg/m³, for `kind` over `period`.
    public static func limit(_ kind: DustKind, _ period: WHOAveragingPeriod, _ level: WHOLevel) -> MicrogramsPerCubicMetre {
        let row: [MicrogramsPerCubicMetre] = switch (kind, period) {
        case (.pm25, .annual): [35, 25, 15, 10, 5]
        case (.pm25, .twentyFourHour): [75, 50, 37.5, 25, 15]
        case (.pm10, .annual): [70, 50, 30, 20, 15]
        case (.pm10, .twentyFourHour): [150, 100, 75, 50, 45]
        }
        return row[level.rawValue - 1]
    }

    /// How `microgramsPerCubicMetre` compares with every level; nil when negative or not a
    /// number (+∞ exceeds every level).
    public static func assess(_ kind: DustKind, _ period: WHOAveragingPeriod,
                              microgramsPerCubicMetre c: MicrogramsPerCubicMetre) -> WHOAssessment? {
        guard !c.isNaN, c >= 0 else { return nil }
        let exceeded = WHOLevel.allCases.filter { c > limit(kind, period, $0) }
        return WHOAssessment(kind: kind, period: period, concentration: c, exceededLevels: exceeded)
    }
}

/// One concentration compared with the WHO 2021 levels for its pollutant and averaging period.
public struct WHOAssessment: Hashable, Sendable {
    public let kind: DustKind
    public let period: WHOAveragingPeriod
    /// The concentration assessed, µg/m³.
    public let concentration: MicrogramsPerCubicMetre
    /// The levels strictly exceeded, loosest (IT-1) first.
    public let exceededLevels: [WHOLevel]

    /// True when the air-quality guideline level is exceeded.
    public var exceedsGuideline: Bool { exceededLevels.contains(.guideline) }

    /// The strictest level met (not exceeded); nil when even IT-1 is exceeded.
    public var strictestLevelMet: WHOLevel? { WHOLevel.allCases.filter { !exceededLevels.contains($0) }.max() }
}
