import Foundation

// MARK: - The model protocol

/// How much PM a person inhales while walking a given distance within one hour.
///
/// Two models implement it: `InhalationIntakeModel` (the default, DOMAIN.md §6.6) and
/// `LegacyIntakeModel` (the original app, kept for regression fixtures).
public protocol WalkingIntakeModel: Sendable {
    /// µg inhaled while covering `distanceMetres` within one hour at `concentration` µg/m³;
    /// nil when an input is negative or not finite, or the amount would not be finite. An amount
    /// has no top class, so +∞ gives no value rather than a cap (see `TableTruncation`).
    func intakeMicrograms(concentration: MicrogramsPerCubicMetre, distanceMetres: Metres) -> Micrograms?

    /// True when `distanceMetres` gives zero intake whatever the concentration, so an hour with
    /// that distance and no concentration still has a known intake (0 µg). Default: only 0 m.
    func intakeIsZeroAtAnyConcentration(distanceMetres: Metres) -> Bool
}

extension WalkingIntakeModel {
    /// Only 0 m gives zero intake at any concentration.
    public func intakeIsZeroAtAnyConcentration(distanceMetres: Metres) -> Bool { distanceMetres == 0 }
}

/// Inhaled mass in µg: `C (µg/m³) × IR (m³/h) × t (h)`. No rounding and no checks: the models
/// validate their inputs before calling it.
public func inhaledMicrograms(concentration: MicrogramsPerCubicMetre, rate: CubicMetresPerHour, hours: Hours) -> Micrograms {
    concentration * rate * hours
}

// MARK: - Inhalation rates

/// EPA Exposure Factors Handbook activity levels, defined by METs: sedentary/passive ≤ 1.5,
/// light 1.5–3.0, moderate 3.0–6.0, high > 6.0. Brisk walking (3–4 METs) is moderate.
public enum ActivityLevel: String, CaseIterable, Hashable, Sendable, Codable, Comparable {
    case sedentary, light, moderate, high

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Short-term inhalation rates per activity level, m³/h.
public struct InhalationRates: Hashable, Sendable, Codable {
    public var sedentary: CubicMetresPerHour
    public var light: CubicMetresPerHour
    public var moderate: CubicMetresPerHour
    public var high: CubicMetresPerHour

    public init(sedentary: CubicMetresPerHour, light: CubicMetresPerHour,
                moderate: CubicMetresPerHour, high: CubicMetresPerHour) {
        self.sedentary = sedentary
        self.light = light
        self.moderate = moderate
        self.high = high
    }

    /// U.S. EPA, *Exposure Factors Handbook: 2011 Edition*, EPA/600/R-09/052F, Chapter 6,
    /// Table 6-2: means for adults aged 21 to <31, males and females combined (4.2E-03,
    /// 1.2E-02, 2.6E-02, 5.0E-02 m³/min × 60): sedentary 0.25, light 0.72, moderate 1.56,
    /// high 3.0 m³/h. (DOMAIN.md §6.6; the primary PDF table was not read as text.)
    public static let efh2011Adults21To31 = InhalationRates(sedentary: 0.25, light: 0.72, moderate: 1.56, high: 3.0)

    /// The rate for `level`, m³/h.
    public func rate(for level: ActivityLevel) -> CubicMetresPerHour {
        switch level {
        case .sedentary: sedentary
        case .light: light
        case .moderate: moderate
        case .high: high
        }
    }
}

// MARK: - The default model

/// The honest intake model (DOMAIN.md §6.6): `inhaled = C × IR × t_walk`, where
/// `t_walk = min(1 h, distance ÷ speed)`.
///
/// Defaults: EFH 2011 rates for adults 21–<31, walking counted as `moderate` (1.56 m³/h), walking
/// speed 5 km/h (an assumption, not a measurement). Only the walking time is modelled, as in the
/// app; the rest of the hour contributes nothing. Results stay `Double`, unrounded. "Inhaled" is
/// not "deposited".
public struct InhalationIntakeModel: WalkingIntakeModel, Hashable, Codable {
    /// Inhalation rates per activity level, m³/h.
    public var rates: InhalationRates
    /// The activity level walking is counted as.
    public var walkingActivity: ActivityLevel
    /// The assumed walking speed, km/h, which turns distance into time.
    public var walkingSpeed: KilometresPerHour

    /// The default walking speed, 5 km/h.
    public static let defaultWalkingSpeed: KilometresPerHour = 5

    public init(rates: InhalationRates = .efh2011Adults21To31,
                walkingActivity: ActivityLevel = .moderate,
                walkingSpeed: KilometresPerHour = InhalationIntakeModel.defaultWalkingSpeed) {
        self.rates = rates
        self.walkingActivity = walkingActivity
        self.walkingSpeed = walkingSpeed
    }

    /// The inhalation rate while walking, m³/h.
    public var walkingRate: CubicMetresPerHour { rates.rate(for: walkingActivity) }

    /// Hours spent walking `distanceMetres` at `walkingSpeed`, at most 1 h; nil when the distance
    /// is negative or not finite, or the speed is not positive.
    public func walkingHours(distanceMetres: Metres) -> Hours? {
        guard distanceMetres.isFinite, distanceMetres >= 0, walkingSpeed.isFinite, walkingSpeed > 0 else { return nil }
        return min(1, distanceMetres / (walkingSpeed * 1000))
    }

    /// µg inhaled while walking `distanceMetres` within one hour at `concentration` µg/m³; nil
    /// when an input is negative or not finite, or the product overflows to +∞.
    public func intakeMicrograms(concentration: MicrogramsPerCubicMetre, distanceMetres: Metres) -> Micrograms? {
        guard concentration.isFinite, concentration >= 0, walkingRate.isFinite, walkingRate >= 0,
              let hours = walkingHours(distanceMetres: distanceMetres) else { return nil }
        let micrograms = inhaledMicrograms(concentration: concentration, rate: walkingRate, hours: hours)
        return micrograms.isFinite ? micrograms : nil
    }
}
