import Foundation

/// The original app's intake formula. **Legacy**: kept to reproduce and explain the app's
/// numbers in regression fixtures, not as a model of inhalation.
///
/// `boostcamp3-iOS/team-c2 FineDust/Intake/IntakeService.swift` (DOMAIN.md §2.1), per hour:
/// `Int(Double(dust * distance) * 0.036 * 0.01)` µg, with `dust` in whole µg/m³, `distance` in
/// whole metres walked in that hour, and distances below 500 m counted as 0 ("indoors",
/// `HealthKitService`, DOMAIN.md §2.3). Evaluated in binary floating point, exact products land
/// one below: 50 µg/m³ × 1000 m gives 17.999999999999996, truncated to **17**, not 18.
///
/// Every function here accepts only the inputs in `validDust` and `validDistanceMetres` and
/// returns nil for anything else: a negative input is not rounded toward zero or taken as
/// "indoors", and no product can overflow `Int`.
public enum LegacyIntake {
    /// Hourly distances below this are counted as 0 m (the app's indoor rule uses `<`).
    public static let indoorThresholdMetres = 500

    /// Concentrations the formulas accept, whole µg/m³: 0 up to (not including) 10⁶.
    public static let validDust = 0..<1_000_000
    /// Distances the formulas accept, whole metres in one hour: 0 up to (not including) 10⁷.
    /// With `validDust`, the largest product, `d × x × 36` < 3.6 × 10¹⁴, fits in `Int`, and
    /// `d × x` converts to `Double` exactly.
    public static let validDistanceMetres = 0..<10_000_000

    /// True when both inputs are in the accepted ranges.
    static func isValid(dust: Int, distanceMetres: Int) -> Bool {
        validDust.contains(dust) && validDistanceMetres.contains(distanceMetres)
    }

    /// The app's indoor rule: `metres < 500 → 0`, otherwise unchanged; nil outside
    /// `validDistanceMetres`.
    public static func outdoorDistance(metres: Int) -> Int? {
        guard validDistanceMetres.contains(metres) else { return nil }
        return metres < indoorThresholdMetres ? 0 : metres
    }

    /// The formula evaluated exactly, `⌊dust × distance × 36 / 100 000⌋` µg, in integer
    /// arithmetic (no indoor rule). 50 µg/m³ × 1000 m → 18. Nil outside the accepted ranges.
    public static func exactMicrograms(dust: Int, distanceMetres: Int) -> Int? {
        guard isValid(dust: dust, distanceMetres: distanceMetres) else { return nil }
        return dust * distanceMetres * 36 / 100_000
    }

    /// The formula exactly as the app evaluated it, `Int((Double(dust * distance) * 0.036) * 0.01)`
    /// µg (no indoor rule). 50 µg/m³ × 1000 m → 17. Nil outside the accepted ranges.
    public static func appMicrograms(dust: Int, distanceMetres: Int) -> Int? {
        guard isValid(dust: dust, distanceMetres: distanceMetres) else { return nil }
        return Int((Double(dust * distanceMetres) * 0.036) * 0.01)
    }

    /// One hour's legacy intake, µg: the indoor rule, then the formula in `arithmetic`. Nil
    /// outside the accepted ranges (checked before the indoor rule, so a negative distance is
    /// not taken as indoors).
    public static func hourlyMicrograms(dust: Int, distanceMetres: Int, arithmetic: LegacyArithmetic) -> Int? {
        guard isValid(dust: dust, distanceMetres: distanceMetres),
              let outdoor = outdoorDistance(metres: distanceMetres) else { return nil }
        switch arithmetic {
        case .exactInteger: return exactMicrograms(dust: dust, distanceMetres: outdoor)
        case .appFloatingPoint: return appMicrograms(dust: dust, distanceMetres: outdoor)
        }
    }
}

/// How the legacy formula is evaluated.
public enum LegacyArithmetic: String, CaseIterable, Hashable, Sendable, Codable {
    /// `d*x*36/100000` in integers: what the formula means.
    case exactInteger
    /// `Int((Double(d*x) * 0.036) * 0.01)`: what the app computed, one below in 634 grid cases.
    case appFloatingPoint
}

/// The legacy formula as a `WalkingIntakeModel`. **Legacy** (see `LegacyIntake`).
///
/// Inputs are truncated toward zero to whole µg/m³ and whole metres, as the app parsed
/// `Int(pm10Value)` and `Int(distance)`; the 500 m indoor rule then applies; the result is a
/// whole number of µg returned as `Double`.
public struct LegacyIntakeModel: WalkingIntakeModel, Hashable, Codable {
    /// How the formula is evaluated; exact integers by default.
    public var arithmetic: LegacyArithmetic

    public init(arithmetic: LegacyArithmetic = .exactInteger) { self.arithmetic = arithmetic }

    /// Whole µg per `LegacyIntake.hourlyMicrograms`; nil for negative, non-finite or absurdly
    /// large inputs (outside `LegacyIntake.validDust` / `validDistanceMetres` once truncated:
    /// ≥ 10⁶ µg/m³ or ≥ 10⁷ m in an hour).
    public func intakeMicrograms(concentration: MicrogramsPerCubicMetre, distanceMetres: Metres) -> Micrograms? {
        guard concentration.isFinite, distanceMetres.isFinite, concentration >= 0, distanceMetres >= 0,
              concentration < Double(LegacyIntake.validDust.upperBound),
              distanceMetres < Double(LegacyIntake.validDistanceMetres.upperBound) else { return nil }
        return LegacyIntake.hourlyMicrograms(dust: Int(concentration), distanceMetres: Int(distanceMetres),
                                             arithmetic: arithmetic).map(Micrograms.init)
    }

    /// True for distances the indoor rule zeroes (0 ≤ m < 500).
    public func intakeIsZeroAtAnyConcentration(distanceMetres: Metres) -> Bool {
        distanceMetres >= 0 && distanceMetres < Metres(LegacyIntake.indoorThresholdMetres)
    }
}
