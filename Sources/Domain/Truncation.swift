import Foundation

/// A concentration prepared for a grade or index table by `TableTruncation.truncate`.
public enum TruncatedValue: Hashable, Sendable {
    /// The value in whole truncation units, below the table's cap.
    case units(Int)
    /// The value is at or above the table's cap, where every value gets the same result
    /// (`.beyondScale`, 매우나쁨). +∞ always lands here.
    case atOrAboveCap
}

/// The truncation and input rule shared by every table in the module: the CAI and US EPA AQI
/// breakpoint tables (`BreakpointTable`), the Korean PM grades (`KoreanGradeTable`) and the
/// grade of a published CAI (`KoreanCAI.grade(khai:)`).
///
/// **Truncation.** A value is truncated toward zero to a whole number of the table's truncation
/// unit (`1 / unitsPerWhole` of the pollutant's unit: whole µg/m³ for Korean grades, CAI PM and
/// EPA PM10, 0.1 µg/m³ for EPA PM2.5, 0.001 ppm or 0.01 ppm for CAI gases), after adding an
/// allowance of 10⁻⁶ truncation unit. The allowance absorbs binary representation and summing
/// error, which leaves a decimal value a few ULPs below its true value: `0.031` ppm × 1000 is 31
/// thousandths rather than 30, `10.1 + 10.2 + 10.7` (30.999999999999996 in binary) is 31 µg/m³,
/// and `16.0.nextDown` is 16. It is orders of magnitude above that error (under 10⁻⁹ unit for sums and
/// means of a day's published values below the top breakpoints) and far below the precision
/// AirKorea or EPA publish, so it never moves a real reading: only a value within 10⁻⁶ unit below a whole unit
/// is counted as that whole unit.
///
/// **Input rule.** NaN, −∞ and negative values give no result (nil). +∞ lies above every
/// breakpoint and is at or above any cap, so a scale puts it in its top class: `.beyondScale`
/// for CAI and AQI, 매우나쁨 for Korean grades and a CAI grade, every level exceeded for the
/// WHO 2021 guidelines. Calculations that return an amount rather than a class (intake, µg)
/// have no top class and give no value for a non-finite input.
public enum TableTruncation {
    /// The allowance added before truncating, in truncation units: 10⁻⁶.
    public static let allowance = 1e-6

    /// `value` truncated to whole truncation units under the module's rule.
    ///
    /// - Parameters:
    ///   - value: the concentration (or index) in its unit.
    ///   - unitsPerWhole: truncation units per whole unit (1, 10, 100 or 1000).
    ///   - cap: the smallest number of truncation units at which the table's result no longer
    ///     changes (one above the top breakpoint, or the first unit of an open-ended top band).
    /// - Returns: nil for NaN, −∞ and negative values; `.atOrAboveCap` at or above `cap`, +∞
    ///   included; `.units` otherwise.
    public static func truncate(_ value: Double, unitsPerWhole: Int = 1, cap: Int) -> TruncatedValue? {
        guard !value.isNaN, value >= 0 else { return nil }
        let scaled = value * Double(unitsPerWhole) + allowance
        guard scaled < Double(cap) else { return .atOrAboveCap }
        return .units(Int(scaled.rounded(.down)))
    }
}
