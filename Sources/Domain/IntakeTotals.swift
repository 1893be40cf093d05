import Foundation

// MARK: - Pairing walking hours with measurements

/// Which measurement slot a walking slot is paired with. The single place this is decided.
///
/// Both series are keyed by `HourSlot`, the interval start in KST. Walking in [h, h+1) is the
/// walking slot h. AirKorea's value labelled `(h+1):00` averages [h, h+1), and its `HourSlot`
/// is h (`HourSlot(airKoreaLabel:)`), so the default pairs slot h with slot h: the same hour of
/// air. For h = 23 that is the value labelled `D 24:00`.
public enum SlotPairing: String, CaseIterable, Hashable, Sendable, Codable {
    /// Walking slot h ↔ measurement slot h (AirKorea label `(h+1):00`). The default.
    case sameInterval
    /// Walking slot h ↔ measurement slot h − 1 (AirKorea label `h:00`): the original app's
    /// one-hour lag (DOMAIN.md §3.3). **Legacy**, for regression fixtures only.
    case legacyOneHourLag

    /// The measurement slot paired with `walkingSlot`.
    public func concentrationSlot(forWalkingSlot walkingSlot: HourSlot) -> HourSlot {
        switch self {
        case .sameInterval: walkingSlot
        case .legacyOneHourLag: walkingSlot.previous
        }
    }
}

// MARK: - Results

/// One walking hour's intake with the inputs behind it.
public struct HourlyIntake: Hashable, Sendable {
    /// The walking hour, [h, h+1) KST.
    public let walkingSlot: HourSlot
    /// The measurement slot paired with it (`SlotPairing`).
    public let concentrationSlot: HourSlot
    /// The paired concentration, µg/m³; nil when missing.
    public let concentration: MicrogramsPerCubicMetre?
    /// Metres walked in the hour; nil when missing.
    public let distanceMetres: Metres?
    /// µg inhaled; nil when the inputs do not determine it.
    public let micrograms: Micrograms?

    public init(walkingSlot: HourSlot, concentrationSlot: HourSlot, concentration: MicrogramsPerCubicMetre?,
                distanceMetres: Metres?, micrograms: Micrograms?) {
        self.walkingSlot = walkingSlot
        self.concentrationSlot = concentrationSlot
        self.concentration = concentration
        self.distanceMetres = distanceMetres
        self.micrograms = micrograms
    }

    /// True when the hour's intake is known.
    public var hasData: Bool { micrograms != nil }
}

/// A sum of hourly intakes with how many hours it actually covers.
public struct IntakeTotal: Hashable, Sendable, Codable {
    /// µg inhaled over the hours with data. Unrounded.
    public var micrograms: Micrograms
    /// Hours whose intake is known.
    public var hoursWithData: Int
    /// Hours the total should cover.
    public var hoursExpected: Int

    public init(micrograms: Micrograms, hoursWithData: Int, hoursExpected: Int) {
        self.micrograms = micrograms
        self.hoursWithData = hoursWithData
        self.hoursExpected = hoursExpected
    }

    /// Nothing, over no hours.
    public static let zero = IntakeTotal(micrograms: 0, hoursWithData: 0, hoursExpected: 0)

    /// `hoursWithData ÷ hoursExpected`, 0…1; nil when no hour is expected.
    public var completeness: Double? {
        hoursExpected == 0 ? nil : Double(hoursWithData) / Double(hoursExpected)
    }

    /// True when every expected hour has data.
    public var isComplete: Bool { hoursWithData == hoursExpected }

    /// The sum of two totals (µg and hour counts added).
    public static func + (a: IntakeTotal, b: IntakeTotal) -> IntakeTotal {
        IntakeTotal(micrograms: a.micrograms + b.micrograms,
                    hoursWithData: a.hoursWithData + b.hoursWithData,
                    hoursExpected: a.hoursExpected + b.hoursExpected)
    }
}

/// One day's intake: every expected walking hour and their total.
public struct DailyIntake: Hashable, Sendable {
    /// The KST date.
    public let date: LocalDate
    /// The expected walking hours of the day, ascending (24, or fewer before a cutoff).
    public let hours: [HourlyIntake]

    public init(date: LocalDate, hours: [HourlyIntake]) {
        self.date = date
        self.hours = hours
    }

    /// The day's total with its completeness.
    public var total: IntakeTotal {
        IntakeTotal(micrograms: hours.reduce(0) { $0 + ($1.micrograms ?? 0) },
                    hoursWithData: hours.count { $0.hasData },
                    hoursExpected: hours.count)
    }
}

/// Seven days of intake, D-6 … today, as the original app's statistics screen showed them
/// (the original's rules, DOMAIN.md §2.5 and §7.6, not the refactor's regressions).
public struct WeeklyIntake: Hashable, Sendable {
    /// Seven days, oldest (D-6) first, today last.
    public let days: [DailyIntake]

    public init(days: [DailyIntake]) { self.days = days }

    /// Today (the last day).
    public var today: DailyIntake { days[days.count - 1] }

    /// The week's total with its completeness.
    public var total: IntakeTotal { days.reduce(IntakeTotal.zero) { $0 + $1.total } }

    /// Today's share of the week: `today µg ÷ max(week µg, 1)` (the denominator is clamped to 1 µg).
    public var todayRatio: Double { today.total.micrograms / max(total.micrograms, 1) }

    /// The week's daily average, `week µg ÷ 7`, µg/day.
    public var dailyAverageMicrograms: Micrograms { total.micrograms / Double(days.count) }
}

// MARK: - Calculator

/// Computes hourly, daily and weekly intake from concentrations and walking distances.
///
/// Concentrations are one pollutant's µg/m³ keyed by measurement slot (see `hourlyPM(from:)`);
/// distances are metres walked keyed by walking slot. Hours are paired by key
/// (`SlotPairing`), never by position. An hour's intake is known when its distance is present
/// and either its paired concentration is present or the distance gives zero intake anyway
/// (0 m; below 500 m in the legacy model). Unknown hours are counted, never taken as 0.
public struct IntakeCalculator: Sendable {
    /// The intake model.
    public var model: any WalkingIntakeModel
    /// How walking slots are paired with measurement slots.
    public var pairing: SlotPairing

    /// The default: `InhalationIntakeModel()` with same-interval pairing.
    public init(model: any WalkingIntakeModel = InhalationIntakeModel(), pairing: SlotPairing = .sameInterval) {
        self.model = model
        self.pairing = pairing
    }

    /// The original app's rules, **legacy**: its formula (float arithmetic by default), the
    /// 500 m indoor rule and the one-hour lag. Missing data is still counted, not zeroed.
    public static func legacyApp(arithmetic: LegacyArithmetic = .appFloatingPoint) -> IntakeCalculator {
        IntakeCalculator(model: LegacyIntakeModel(arithmetic: arithmetic), pairing: .legacyOneHourLag)
    }

    /// The intake of one walking hour.
    public func hourly(walkingSlot: HourSlot, concentrations: HourlySeries<MicrogramsPerCubicMetre>,
                       distances: HourlySeries<Metres>) -> HourlyIntake {
        let concentrationSlot = pairing.concentrationSlot(forWalkingSlot: walkingSlot)
        let concentration = concentrations[concentrationSlot]
        let distance = distances[walkingSlot]
        var micrograms: Micrograms?
        if let distance {
            if let concentration {
                micrograms = model.intakeMicrograms(concentration: concentration, distanceMetres: distance)
            } else if model.intakeIsZeroAtAnyConcentration(distanceMetres: distance) {
                micrograms = 0
            }
        }
        return HourlyIntake(walkingSlot: walkingSlot, concentrationSlot: concentrationSlot,
                            concentration: concentration, distanceMetres: distance, micrograms: micrograms)
    }

    /// The intake of every walking hour present in `distances`, keyed by walking slot.
    public func hourly(concentrations: HourlySeries<MicrogramsPerCubicMetre>,
                       distances: HourlySeries<Metres>) -> HourlySeries<HourlyIntake> {
        HourlySeries(Dictionary(uniqueKeysWithValues: distances.slots.map {
            ($0, hourly(walkingSlot: $0, concentrations: concentrations, distances: distances))
        }))
    }

    /// One day's intake. Hours 0…23 of `date` are expected, except walking slots at or after
    /// `cutoff` (pass the slot in progress when computing today; nil expects all 24).
    public func daily(on date: LocalDate, concentrations: HourlySeries<MicrogramsPerCubicMetre>,
                      distances: HourlySeries<Metres>, before cutoff: HourSlot? = nil) -> DailyIntake {
        let expected = date.hourSlots.filter { cutoff == nil || $0 < cutoff! }
        return DailyIntake(date: date, hours: expected.map {
            hourly(walkingSlot: $0, concentrations: concentrations, distances: distances)
        })
    }

    /// Seven days of intake, `today` − 6 … `today`; `cutoff` as in `daily`.
    public func weekly(endingOn today: LocalDate, concentrations: HourlySeries<MicrogramsPerCubicMetre>,
                       distances: HourlySeries<Metres>, before cutoff: HourSlot? = nil) -> WeeklyIntake {
        WeeklyIntake(days: (-6...0).map {
            daily(on: today.adding(days: $0), concentrations: concentrations, distances: distances, before: cutoff)
        })
    }

    /// `daily` for PM10 and PM2.5, reported separately (never added: PM2.5 ⊂ PM10).
    public func daily(on date: LocalDate, concentrations: DustPair<HourlySeries<MicrogramsPerCubicMetre>>,
                      distances: HourlySeries<Metres>, before cutoff: HourSlot? = nil) -> DustPair<DailyIntake> {
        concentrations.map { daily(on: date, concentrations: $0, distances: distances, before: cutoff) }
    }

    /// `weekly` for PM10 and PM2.5, reported separately (never added: PM2.5 ⊂ PM10).
    public func weekly(endingOn today: LocalDate, concentrations: DustPair<HourlySeries<MicrogramsPerCubicMetre>>,
                       distances: HourlySeries<Metres>, before cutoff: HourSlot? = nil) -> DustPair<WeeklyIntake> {
        concentrations.map { weekly(endingOn: today, concentrations: $0, distances: distances, before: cutoff) }
    }
}
