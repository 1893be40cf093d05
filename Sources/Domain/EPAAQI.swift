import Foundation

/// US EPA Air Quality Index for 24-hour PM2.5 and PM10, with the 2024 revision.
///
/// Source: final rule "Reconsideration of the NAAQS for Particulate Matter", 89 FR 16202
/// (2024-03-06), effective **2024-05-06**; Technical Assistance Document EPA-454/B-24-002
/// (May 2024); AirNow-Tech, "The AQI Equation (2024 – Valid Beginning May 6th, 2024)". Pre-2024
/// tables as in `atmotube/aqipy aqipy/aqi_us.py` (2016 TAD). DOMAIN.md §6.4:
///
/// | AQI | category | PM2.5 since 2024-05-06 | PM2.5 before | PM10 since 2024-05-06 | PM10 before |
/// | --- | --- | --- | --- | --- | --- |
/// | 0–50 | Good | 0.0–9.0 | 0.0–12.0 | 0–54 | 0–54 |
/// | 51–100 | Moderate | 9.1–35.4 | 12.1–35.4 | 55–154 | 55–154 |
/// | 101–150 | Unhealthy for Sensitive Groups | 35.5–55.4 | 35.5–55.4 | 155–254 | 155–254 |
/// | 151–200 | Unhealthy | 55.5–125.4 | 55.5–150.4 | 255–354 | 255–354 |
/// | 201–300 | Very Unhealthy | 125.5–225.4 | 150.5–250.4 | 355–424 | 355–424 |
/// | 301–500 | Hazardous | 225.5–325.4 | 250.5–350.4 → 301–400, 350.5–500.4 → 401–500 | 425–604 | 425–504 → 301–400, 505–604 → 401–500 |
///
/// "The calculated average concentrations are truncated to … 0.1 μg/m3 for PM2.5, and 1 μg/m3
/// for PM10 … The resulting AQI is rounded to the nearest whole number." A concentration above
/// the top breakpoint is "beyond the AQI" and reported as `.beyondScale`, never extrapolated.
/// The tables are for 24-h averages; AirNow's hourly NowCast is a different calculation.
/// Tables are chosen by the KST date of the averaging period.
public enum EPAAQI {
    /// The date the 2024 PM tables took effect.
    public static let revision2024 = LocalDate(year: 2024, month: 5, day: 6)!

    /// PM2.5 24-h, 0.1 µg/m³, in force since 2024-05-06.
    public static let pm25Since2024 = BreakpointTable(
        name: "EPA AQI PM2.5 (2024)", pollutant: .pm25, unitsPerWhole: 10,
        rows: [(0.0, 9.0, 0, 50), (9.1, 35.4, 51, 100), (35.5, 55.4, 101, 150),
               (55.5, 125.4, 151, 200), (125.5, 225.4, 201, 300), (225.5, 325.4, 301, 500)],
        effectiveFrom: revision2024)

    /// PM2.5 24-h, 0.1 µg/m³, in force before 2024-05-06 (the 2012 NAAQS table).
    public static let pm25Before2024 = BreakpointTable(
        name: "EPA AQI PM2.5 (2012)", pollutant: .pm25, unitsPerWhole: 10,
        rows: [(0.0, 12.0, 0, 50), (12.1, 35.4, 51, 100), (35.5, 55.4, 101, 150), (55.5, 150.4, 151, 200),
               (150.5, 250.4, 201, 300), (250.5, 350.4, 301, 400), (350.5, 500.4, 401, 500)],
        effectiveUntil: revision2024)

    /// PM10 24-h, whole µg/m³, in force since 2024-05-06 (425–604 merged into one 301–500 row).
    public static let pm10Since2024 = BreakpointTable(
        name: "EPA AQI PM10 (2024)", pollutant: .pm10, unitsPerWhole: 1,
        rows: [(0, 54, 0, 50), (55, 154, 51, 100), (155, 254, 101, 150),
               (255, 354, 151, 200), (355, 424, 201, 300), (425, 604, 301, 500)],
        effectiveFrom: revision2024)

    /// PM10 24-h, whole µg/m³, in force before 2024-05-06.
    public static let pm10Before2024 = BreakpointTable(
        name: "EPA AQI PM10 (2012)", pollutant: .pm10, unitsPerWhole: 1,
        rows: [(0, 54, 0, 50), (55, 154, 51, 100), (155, 254, 101, 150), (255, 354, 151, 200),
               (355, 424, 201, 300), (425, 504, 301, 400), (505, 604, 401, 500)],
        effectiveUntil: revision2024)

    /// Every table.
    public static let tables: [BreakpointTable] = [pm25Before2024, pm25Since2024, pm10Before2024, pm10Since2024]

    /// The table for `kind` in force on `date`.
    public static func table(for kind: DustKind, on date: LocalDate) -> BreakpointTable {
        tables[tableIndex(for: kind, on: date)]
    }

    /// Where in `tables` the table for `kind` on `date` is (one is in force on every date).
    private static func tableIndex(for kind: DustKind, on date: LocalDate) -> Int {
        tables.firstIndex { $0.pollutant == kind.pollutant && $0.isInForce(on: date) }!
    }

    /// The AQI of a 24-h `kind` mean for the day `date`: nil when negative or not a number,
    /// `.beyondScale` above the top breakpoint (+∞ included).
    public static func index(_ kind: DustKind, microgramsPerCubicMetre c: MicrogramsPerCubicMetre,
                             on date: LocalDate) -> IndexResult? {
        // The table read in place (`table(for:on:)` returns a copy): this runs twice for every
        // measurement.
        tables[tableIndex(for: kind, on: date)].index(c)
    }

    /// The AQI of a 24-h `kind` mean ending in `slot` (table chosen by the slot's start date).
    public static func index(_ kind: DustKind, microgramsPerCubicMetre c: MicrogramsPerCubicMetre,
                             at slot: HourSlot) -> IndexResult? {
        index(kind, microgramsPerCubicMetre: c, on: slot.date)
    }
}

/// US EPA AQI categories.
public enum AQICategory: Int, CaseIterable, Hashable, Sendable, Codable, Comparable {
    case good = 1, moderate, unhealthyForSensitiveGroups, unhealthy, veryUnhealthy, hazardous

    /// The category of a whole AQI value: 0–50, 51–100, 101–150, 151–200, 201–300, ≥301
    /// (values above 500 are "beyond the AQI" and still Hazardous); nil when negative.
    public init?(index: Int) {
        switch index {
        case ..<0: return nil
        case 0...50: self = .good
        case 51...100: self = .moderate
        case 101...150: self = .unhealthyForSensitiveGroups
        case 151...200: self = .unhealthy
        case 201...300: self = .veryUnhealthy
        default: self = .hazardous
        }
    }

    /// The category of an index result; `.beyondScale` is Hazardous.
    public init(_ result: IndexResult) {
        switch result {
        case .index(let value): self = AQICategory(index: value) ?? .good
        case .beyondScale: self = .hazardous
        }
    }

    /// EPA's name for the category.
    public var label: String {
        switch self {
        case .good: "Good"
        case .moderate: "Moderate"
        case .unhealthyForSensitiveGroups: "Unhealthy for Sensitive Groups"
        case .unhealthy: "Unhealthy"
        case .veryUnhealthy: "Very Unhealthy"
        case .hazardous: "Hazardous"
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
