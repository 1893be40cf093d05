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

/// One hour's intake with the inputs behind it.
public struct HourlyIntake: Hashable, Sendable {
    /// The hour, [h, h+1) KST.
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

    /// True unless nothing was walked in the hour (a known 0 m). An hour whose distance is
    /// unknown may have been walked, so it counts as a walking hour (without data). Only walking
    /// hours count in totals and their completeness: an hour nobody walked in says nothing about
    /// intake, whether or not its air was measured.
    public var isWalking: Bool { distanceMetres != 0 }
}

/// A sum of hourly intakes over walking hours, with how many of them it actually covers.
///
/// Hours nobody walked in are not part of it (`HourlyIntake.isWalking`). Over walking hours none
/// of which has data, the total is unknown (`micrograms` is nil), never 0.
public struct IntakeTotal: Hashable, Sendable, Codable {
    /// µg summed over the walking hours with data; 0 when none has data. Unrounded. Read
    /// `micrograms`, which is nil when there is no data at all.
    public var microgramsOverHoursWithData: Micrograms
    /// Walking hours whose intake is known.
    public var walkingHoursWithData: Int
    /// Walking hours the total should cover.
    public var walkingHours: Int

    public init(microgramsOverHoursWithData: Micrograms, walkingHoursWithData: Int, walkingHours: Int) {
        self.microgramsOverHoursWithData = microgramsOverHoursWithData
        self.walkingHoursWithData = walkingHoursWithData
        self.walkingHours = walkingHours
    }

    /// The total of `hours`' walking hours; the others change nothing.
    public init(of hours: some Sequence<HourlyIntake>) {
        var total = IntakeTotal.zero
        for hour in hours where hour.isWalking {
            total.walkingHours += 1
            if let micrograms = hour.micrograms {
                total.walkingHoursWithData += 1
                total.microgramsOverHoursWithData += micrograms
            }
        }
        self = total
    }

    /// Nothing, over no walking hours.
    public static let zero = IntakeTotal(microgramsOverHoursWithData: 0, walkingHoursWithData: 0, walkingHours: 0)

    /// µg inhaled over the walking hours with data (a partial total when some have none: see
    /// `walkingHoursWithData`); nil when there are walking hours and none has data. With no
    /// walking hour at all, 0 µg: nothing was walked, so nothing was inhaled while walking.
    public var micrograms: Micrograms? { hasNoData ? nil : microgramsOverHoursWithData }

    /// True when there are walking hours and none of them has data.
    public var hasNoData: Bool { walkingHours > 0 && walkingHoursWithData == 0 }

    /// `walkingHoursWithData ÷ walkingHours`, 0…1; nil when there is no walking hour.
    public var completeness: Double? {
        walkingHours == 0 ? nil : Double(walkingHoursWithData) / Double(walkingHours)
    }

    /// True when every walking hour has data.
    public var isComplete: Bool { walkingHoursWithData == walkingHours }

    /// The sum of two totals (µg and hour counts added).
    public static func + (a: IntakeTotal, b: IntakeTotal) -> IntakeTotal {
        IntakeTotal(microgramsOverHoursWithData: a.microgramsOverHoursWithData + b.microgramsOverHoursWithData,
                    walkingHoursWithData: a.walkingHoursWithData + b.walkingHoursWithData,
                    walkingHours: a.walkingHours + b.walkingHours)
    }
}

/// One day's intake: every expected hour and the total over its walking hours.
public struct DailyIntake: Hashable, Sendable {
    /// The KST date.
    public let date: LocalDate
    /// The expected hours of the day, walking or not, ascending (24, or fewer before a cutoff).
    public let hours: [HourlyIntake]

    public init(date: LocalDate, hours: [HourlyIntake]) {
        self.date = date
        self.hours = hours
    }

    /// The day's walking hours (`HourlyIntake.isWalking`), ascending.
    public var walkingHours: [HourlyIntake] { hours.filter(\.isWalking) }

    /// The day's total over its walking hours, with its completeness.
    public var total: IntakeTotal { IntakeTotal(of: hours) }
}

/// Seven days of intake, D-6 … today, as the original app's statistics screen showed them
/// (DOMAIN.md §2.5 and §7.6), except that a day without data is never taken as 0 µg.
public struct WeeklyIntake: Hashable, Sendable {
    /// Seven days, oldest (D-6) first, today last.
    public let days: [DailyIntake]

    public init(days: [DailyIntake]) { self.days = days }

    /// Today (the last day).
    public var today: DailyIntake { days[days.count - 1] }

    /// The week's total over its walking hours, with its completeness.
    public var total: IntakeTotal { days.reduce(IntakeTotal.zero) { $0 + $1.total } }

    /// Today's share of the week: `today µg ÷ max(week µg, 1)` (the denominator is clamped to
    /// 1 µg); nil when today or the week has no data.
    public var todayRatio: Double? {
        guard let today = today.total.micrograms, let week = total.micrograms else { return nil }
        return today / max(week, 1)
    }

    /// Days whose total is known (some walking hour with data, or no walking hour at all).
    public var daysWithData: Int { days.count { $0.total.micrograms != nil } }

    /// The week's daily average, µg/day: the week's µg ÷ the days with data (÷ 7 when every day
    /// has data, as the original app divided). A day without data is left out rather than
    /// counted as 0 µg; nil when no day has data.
    public var dailyAverageMicrograms: Micrograms? {
        guard daysWithData > 0, let week = total.micrograms else { return nil }
        return week / Double(daysWithData)
    }
}

// MARK: - Calculator

/// Computes hourly, daily and weekly intake from concentrations and walking distances.
///
/// Concentrations are one pollutant's µg/m³ keyed by measurement slot (see `hourlyPM(from:)`);
/// distances are metres walked keyed by walking slot. Hours are paired by key
/// (`SlotPairing`), never by position. An hour's intake is known when its distance is present
/// and either its paired concentration is present or the distance gives zero intake anyway
/// (0 m; below 500 m in the legacy model). Totals cover the walking hours only (every hour
/// except those with a known 0 m); a walking hour without data is counted, never taken as 0.
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
