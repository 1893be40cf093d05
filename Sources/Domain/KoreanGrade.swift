import Foundation

/// Korean four-level PM grade bands (좋음/보통/나쁨/매우나쁨) for one particulate fraction, with
/// the period they were in force.
///
/// Bands are inclusive ranges of whole µg/m³. A concentration is truncated toward zero to a
/// whole µg/m³ before grading, as AirKorea publishes whole numbers and CAI implementations
/// truncate (DOMAIN.md §6.1): 15.9 µg/m³ of PM2.5 grades as 15, 좋음. Truncation and invalid
/// input follow `TableTruncation`, as for the CAI: a value a few ULPs below a whole number
/// (`10.1 + 10.2 + 10.7`) counts as that number, NaN and negative values are not graded, and
/// +∞ is 매우나쁨.
public struct KoreanGradeTable: Hashable, Sendable {
    /// The particulate fraction the bands apply to.
    public let kind: DustKind
    /// Highest whole µg/m³ graded 좋음 (good).
    public let goodMax: Int
    /// Highest whole µg/m³ graded 보통 (moderate).
    public let moderateMax: Int
    /// Highest whole µg/m³ graded 나쁨 (bad); anything above is 매우나쁨 (very bad).
    public let badMax: Int
    /// The first KST date the bands apply to; nil when they apply to all earlier dates.
    public let effectiveFrom: LocalDate?
    /// The first KST date the bands no longer apply to; nil when still in force.
    public let effectiveUntil: LocalDate?

    public init(kind: DustKind, goodMax: Int, moderateMax: Int, badMax: Int,
                effectiveFrom: LocalDate?, effectiveUntil: LocalDate?) {
        self.kind = kind
        self.goodMax = goodMax
        self.moderateMax = moderateMax
        self.badMax = badMax
        self.effectiveFrom = effectiveFrom
        self.effectiveUntil = effectiveUntil
    }

    /// True when the bands apply to `date`.
    public func isInForce(on date: LocalDate) -> Bool {
        if let effectiveFrom, date < effectiveFrom { return false }
        if let effectiveUntil, date >= effectiveUntil { return false }
        return true
    }

    /// The grade of `microgramsPerCubicMetre` after truncation to whole µg/m³
    /// (`TableTruncation`); nil when the value is negative or not a number, 매우나쁨 for +∞.
    public func grade(microgramsPerCubicMetre c: MicrogramsPerCubicMetre) -> AirKoreaGrade? {
        // Every value from badMax + 1 upward is 매우나쁨, so that is the cap.
        switch TableTruncation.truncate(c, cap: badMax + 1) {
        case nil: return nil
        case .atOrAboveCap: return .veryBad
        case .units(let whole):
            if whole <= goodMax { return .good }
            if whole <= moderateMax { return .moderate }
            return .bad
        }
    }
}

/// Korean PM grades (환경부 예보·실시간 등급) chosen by the date of the measurement.
///
/// Source: 찾기쉬운 생활법령정보 (법제처),
/// https://www.easylaw.go.kr/CSP/OnhunqueansInfoRetrieve.laf?onhunqnaAstSeq=96&onhunqueSeq=5499
/// (current bands, effective 2018-03-27, following '대기 환경기준 선진화 방안 연구', 환경부 2017;
/// the page's "31 ~ 81" for PM10 보통 is a typo for 31–80); the earlier PM2.5 bands are from
/// https://newspim.com/news/view/20180320000064 (DOMAIN.md §6.1–6.2).
///
/// | µg/m³ | 좋음 | 보통 | 나쁨 | 매우나쁨 |
/// | --- | --- | --- | --- | --- |
/// | PM10 (before and since 2018-03-27) | 0–30 | 31–80 | 81–150 | ≥151 |
/// | PM2.5 before 2018-03-27 | 0–15 | 16–50 | 51–100 | ≥101 |
/// | PM2.5 since 2018-03-27 | 0–15 | 16–35 | 36–75 | ≥76 |
///
/// The tables are defined on daily (24-h) means. AirKorea grades its 1-hour values
/// (`pm10Grade1h`, `pm25Grade1h`) with the same bands: the caller picks the value to grade (a
/// 24-hour or a 1-hour mean); the bands do not change. A slot is graded by the KST date on which it starts.
public enum KoreanGrading {
    /// The date the current PM2.5 bands took effect.
    public static let revision2018 = LocalDate(year: 2018, month: 3, day: 27)!

    /// PM10 bands before 2018-03-27 (unchanged by the revision).
    public static let pm10Before2018 = KoreanGradeTable(kind: .pm10, goodMax: 30, moderateMax: 80, badMax: 150,
                                                       effectiveFrom: nil, effectiveUntil: revision2018)
    /// PM10 bands since 2018-03-27.
    public static let pm10Since2018 = KoreanGradeTable(kind: .pm10, goodMax: 30, moderateMax: 80, badMax: 150,
                                                      effectiveFrom: revision2018, effectiveUntil: nil)
    /// PM2.5 bands before 2018-03-27.
    public static let pm25Before2018 = KoreanGradeTable(kind: .pm25, goodMax: 15, moderateMax: 50, badMax: 100,
                                                       effectiveFrom: nil, effectiveUntil: revision2018)
    /// PM2.5 bands since 2018-03-27.
    public static let pm25Since2018 = KoreanGradeTable(kind: .pm25, goodMax: 15, moderateMax: 35, badMax: 75,
                                                      effectiveFrom: revision2018, effectiveUntil: nil)

    /// Every table, oldest first within each fraction.
    public static let tables: [KoreanGradeTable] = [pm10Before2018, pm10Since2018, pm25Before2018, pm25Since2018]

    /// The bands for `kind` in force on `date` (KST).
    public static func table(for kind: DustKind, on date: LocalDate) -> KoreanGradeTable {
        tables.first { $0.kind == kind && $0.isInForce(on: date) }!
    }

    /// The grade of a `kind` concentration measured on `date`; nil when negative or not a
    /// number, 매우나쁨 for +∞.
    public static func grade(_ kind: DustKind, microgramsPerCubicMetre c: MicrogramsPerCubicMetre,
                             on date: LocalDate) -> AirKoreaGrade? {
        table(for: kind, on: date).grade(microgramsPerCubicMetre: c)
    }

    /// The grade of a `kind` concentration measured in `slot` (bands chosen by the slot's start date).
    public static func grade(_ kind: DustKind, microgramsPerCubicMetre c: MicrogramsPerCubicMetre,
                             at slot: HourSlot) -> AirKoreaGrade? {
        grade(kind, microgramsPerCubicMetre: c, on: slot.date)
    }
}

/// The original app's own intake grade, applied to µg of walking-time intake. **Legacy.**
///
/// Bands from `boostcamp3-iOS/team-c2 FineDust/Intake/IntakeGrade.swift` (DOMAIN.md §2.5):
/// 0..<50 매우 좋음, 50..<100 좋음, 100..<150 보통, 150..<200 나쁨, ≥200 매우 나쁨. They were
/// invented by the app and match no standard. The app applied them to PM10 + PM2.5 intake, which
/// double-counts (PM2.5 ⊂ PM10); apply them to one pollutant at a time.
public enum LegacyIntakeGrade: Int, CaseIterable, Hashable, Sendable, Codable, Comparable {
    case veryGood = 1, good, normal, bad, veryBad

    /// The grade of `micrograms` of intake; nil for a negative amount (the app's `.default`).
    public init?(micrograms: Int) {
        switch micrograms {
        case ..<0: return nil
        case 0..<50: self = .veryGood
        case 50..<100: self = .good
        case 100..<150: self = .normal
        case 150..<200: self = .bad
        default: self = .veryBad
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
