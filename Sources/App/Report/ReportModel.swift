import Domain
import Foundation
import Storage

// MARK: - Inputs

/// The walking profile the intake charts assume: `metresPerHour` walked in each of `hours`
/// (KST hour starts) every day, at `activity`'s inhalation rate and `speed` km/h.
public struct WalkingProfile: Sendable, Equatable {
    public var activity: ActivityLevel
    public var metresPerHour: Metres
    public var speed: KilometresPerHour
    public var hours: [Int]

    /// 5000 m in every hour at 5 km/h, moderate (1.56 m³/h): a whole hour at the activity's rate,
    /// i.e. inhaled µg = C × 1.56 m³/h × 1 h per hour — the same default as `feedline intake`.
    public static let wholeHourModerate = WalkingProfile(activity: .moderate, metresPerHour: 5000,
                                                         speed: InhalationIntakeModel.defaultWalkingSpeed, hours: Array(0...23))

    public init(activity: ActivityLevel, metresPerHour: Metres, speed: KilometresPerHour, hours: [Int]) {
        self.activity = activity
        self.metresPerHour = metresPerHour
        self.speed = speed
        self.hours = hours
    }

    /// The model behind the profile.
    public var model: InhalationIntakeModel { InhalationIntakeModel(walkingActivity: activity, walkingSpeed: speed) }

    /// Metres walked in every hour from `first` to `last`: `metresPerHour` in the walking hours, 0 m
    /// in the others (so they are not walking hours, and count neither as data nor as missing).
    func distances(from first: LocalDate, through last: LocalDate) -> HourlySeries<Metres> {
        var values: [HourSlot: Metres] = [:]
        let walking = Set(hours)
        var day = first
        while day <= last {
            for slot in day.hourSlots { values[slot] = walking.contains(slot.hour) ? metresPerHour : 0 }
            day = day.adding(days: 1)
        }
        return HourlySeries(values)
    }
}

// MARK: - Limits

/// The 24-hour limits a report compares with, µg/m³ (Domain's, the same the `exceedance_daily`
/// view uses). An hour or a day exceeds a limit when its value is strictly above it.
public enum ReportLimits {
    /// Korean 환경기준, 24-hour mean: PM10 100, PM2.5 35 µg/m³ (`KoreanAmbientStandard`).
    public static func korean(_ kind: DustKind) -> MicrogramsPerCubicMetre { KoreanAmbientStandard.twentyFourHour(kind) }
    /// WHO 2021 air-quality guideline, 24-hour mean: PM10 45, PM2.5 15 µg/m³.
    public static func who(_ kind: DustKind) -> MicrogramsPerCubicMetre {
        WHOGuideline2021.limit(kind, .twentyFourHour, .guideline)
    }
}

// MARK: - The model

/// Everything a report shows, computed from station-hours: pure, so it is tested without a
/// database. Produced by `ReportModel.build`, consumed by `ReportHTML`.
public struct ReportModel: Sendable {
    public struct Hour: Sendable, Equatable {
        public var slot: HourSlot
        /// Mean over the stations with a value (one station: its value), µg/m³.
        public var pm: DustPair<Double?>
        /// Stations with a PM10 / PM2.5 value this hour.
        public var stations: DustPair<Int>
    }

    public struct Day: Sendable, Equatable {
        public var date: LocalDate
        /// Hours of the day with a value (0…24).
        public var hoursWithData: DustPair<Int>
        /// Mean of the hourly values, µg/m³; nil without data.
        public var mean: DustPair<Double?>
        /// Mean PM2.5 and coarse (PM10 − PM2.5) over station-hours having both with PM2.5 ≤ PM10.
        public var pairedPM25: Double?
        public var pairedCoarse: Double?
        /// Inhaled µg that day over the profile's walking hours, with how many of them have a
        /// measurement (hours outside the profile are not counted; a day whose walking hours
        /// have none has no total, never 0 µg).
        public var intake: DustPair<IntakeTotal>
        /// Inhaled µg over the 7 days ending this day (D-6…D).
        public var intakeWeek: DustPair<IntakeTotal>

        /// PM2.5's share of PM10 (paired hours), 0…1.
        public var fineShare: Double? {
            guard let fine = pairedPM25, let coarse = pairedCoarse, fine + coarse > 0 else { return nil }
            return fine / (fine + coarse)
        }
    }

    public struct Exceedance: Sendable, Equatable {
        public var kind: DustKind
        public var limitName: String
        public var limit: Double
        /// Hours whose 1-hour value is above the 24-h limit.
        public var hoursOver: Int
        public var hoursWithData: Int
        /// Days whose mean (with ≥ 18 hours of data) is above the limit; days that could be judged.
        public var daysOver: Int
        public var daysJudged: Int
    }

    /// One station's figures over the range, for a province's ranking.
    public struct StationSummary: Sendable, Equatable {
        public var station: String
        /// Mean of the station's hourly values in the range, µg/m³; nil without data.
        public var mean: DustPair<Double?>
        /// Hours with a value.
        public var hoursWithData: DustPair<Int>
    }

    public var subject: ReportSubject
    /// Station details or the province's stations, for the header.
    public var subtitle: String
    public var first: LocalDate
    public var last: LocalDate
    /// Every hour of the range, in order (24 per day).
    public var hours: [Hour]
    public var days: [Day]
    public var exceedances: [Exceedance]
    /// Hours per Korean grade (1-hour values graded with the bands in force that day).
    public var gradeHours: DustPair<[AirKoreaGrade: Int]>
    /// Distinct stations with any value in the range.
    public var stationCount: Int
    /// Station-hours with a value ÷ (stations × hours), for a province.
    public var stationHourCompleteness: DustPair<Double?>
    /// The stations with any row in the range, highest mean PM10 first (then PM2.5, then name);
    /// stations without a PM10 mean come last.
    public var stations: [StationSummary]
    public var profile: WalkingProfile
    public var postingsByRegion: [RegionCount]?
    public var generatedAt: Date

    /// Hours in the range.
    public var hoursInRange: Int { hours.count }
    /// Hours with a value.
    public var hoursWithData: DustPair<Int> {
        DustPair(pm10: hours.count { $0.pm.pm10 != nil }, pm25: hours.count { $0.pm.pm25 != nil })
    }

    /// Hours with a PM10 or a PM2.5 value.
    public var hoursWithAnyData: Int { hours.count { $0.pm.pm10 != nil || $0.pm.pm25 != nil } }
    /// Days with a PM10 or a PM2.5 value in some hour.
    public var daysWithData: Int { days.count { $0.hoursWithData.pm10 > 0 || $0.hoursWithData.pm25 > 0 } }

    /// Below this share of hours with data, a report says its range is sparse (the 75 % a daily
    /// mean needs).
    public static let sparseBelow = DailyMeanRule.minimumShare

    /// Whether fewer than `sparseBelow` of the range's hours have data.
    public var isSparse: Bool { Double(hoursWithAnyData) < Self.sparseBelow * Double(hoursInRange) }

    /// Computes the report from station-hours. `rows` may include the 6 days before `first`
    /// (they feed the first days' 7-day intake); hours outside `first…last` are not shown.
    public static func build(subject: ReportSubject, subtitle: String, first: LocalDate, last: LocalDate,
                             rows: [StationHour], profile: WalkingProfile, postingsByRegion: [RegionCount]?,
                             generatedAt: Date) -> ReportModel {
        // Per slot: the stations' values.
        var bySlot: [HourSlot: [StationHour]] = [:]
        for row in rows { bySlot[row.slot, default: []].append(row) }
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }

        var concentration = DustPair(pm10: [HourSlot: Double](), pm25: [HourSlot: Double]())
        for (slot, stationHours) in bySlot {
            for kind in DustKind.allCases {
                if let m = mean(stationHours.compactMap { $0.pm[kind] }) { concentration[kind][slot] = m }
            }
        }
        let series = concentration.map { HourlySeries($0) }

        // Hours of the range.
        var hours: [Hour] = []
        var day = first
        while day <= last {
            for slot in day.hourSlots {
                let values = bySlot[slot] ?? []
                hours.append(Hour(slot: slot, pm: DustPair(pm10: series.pm10[slot], pm25: series.pm25[slot]),
                                  stations: DustPair(pm10: values.count { $0.pm.pm10 != nil }, pm25: values.count { $0.pm.pm25 != nil })))
            }
            day = day.adding(days: 1)
        }

        // Intake through the Domain calculator (never adding PM10 and PM2.5).
        let calculator = IntakeCalculator(model: profile.model)
        let distances = profile.distances(from: first.adding(days: -6), through: last)

        var days: [Day] = []
        day = first
        while day <= last {
            let slots = day.hourSlots
            let stationHours = slots.flatMap { bySlot[$0] ?? [] }
            let paired = stationHours.compactMap { h -> (Double, Double)? in
                guard let pm25 = h.pm.pm25, let coarse = h.pm.coarse else { return nil }
                return (pm25, coarse)
            }
            let daily = calculator.daily(on: day, concentrations: series, distances: distances)
            let weekly = calculator.weekly(endingOn: day, concentrations: series, distances: distances)
            days.append(Day(
                date: day,
                hoursWithData: DustPair(pm10: slots.count { series.pm10[$0] != nil }, pm25: slots.count { series.pm25[$0] != nil }),
                mean: DustPair(pm10: mean(slots.compactMap { series.pm10[$0] }), pm25: mean(slots.compactMap { series.pm25[$0] })),
                pairedPM25: mean(paired.map(\.0)), pairedCoarse: mean(paired.map(\.1)),
                intake: daily.map(\.total), intakeWeek: weekly.map(\.total)))
            day = day.adding(days: 1)
        }

        // Exceedances and grades.
        var exceedances: [Exceedance] = []
        var gradeHours = DustPair(pm10: [AirKoreaGrade: Int](), pm25: [AirKoreaGrade: Int]())
        for kind in DustKind.allCases {
            let values = hours.compactMap { h in h.pm[kind].map { (h.slot, $0) } }
            for (slot, value) in values {
                if let grade = KoreanGrading.grade(kind, microgramsPerCubicMetre: value, at: slot) {
                    gradeHours[kind][grade, default: 0] += 1
                }
            }
            let judged = days.filter { DailyMeanRule.isJudged(hoursWithData: $0.hoursWithData[kind]) }
            for (name, limit) in [("Korean 24-h standard", ReportLimits.korean(kind)), ("WHO 2021 24-h guideline", ReportLimits.who(kind))] {
                exceedances.append(Exceedance(
                    kind: kind, limitName: name, limit: limit,
                    hoursOver: values.count { $0.1 > limit }, hoursWithData: values.count,
                    daysOver: judged.count { $0.mean[kind].map { $0 > limit } ?? false }, daysJudged: judged.count))
            }
        }

        // Stations.
        let inRange = rows.filter { $0.slot.date >= first && $0.slot.date <= last }
        let stations = Set(inRange.map(\.station))
        let stationHourCompleteness: DustPair<Double?> = DustKind.allCases.reduce(into: DustPair(pm10: nil, pm25: nil)) { result, kind in
            guard !stations.isEmpty, !hours.isEmpty else { return }
            result[kind] = Double(inRange.count { $0.pm[kind] != nil }) / Double(stations.count * hours.count)
        }

        let summaries = Dictionary(grouping: inRange, by: \.station).map { station, rows in
            StationSummary(station: station,
                           mean: DustPair(pm10: mean(rows.compactMap(\.pm.pm10)), pm25: mean(rows.compactMap(\.pm.pm25))),
                           hoursWithData: DustPair(pm10: rows.count { $0.pm.pm10 != nil }, pm25: rows.count { $0.pm.pm25 != nil }))
        }.sorted(by: StationSummary.ranksBefore)

        return ReportModel(subject: subject, subtitle: subtitle, first: first, last: last, hours: hours, days: days,
                           exceedances: exceedances, gradeHours: gradeHours, stationCount: stations.count,
                           stationHourCompleteness: stationHourCompleteness, stations: summaries, profile: profile,
                           postingsByRegion: postingsByRegion, generatedAt: generatedAt)
    }
}

extension ReportModel.StationSummary {
    /// Ranking order: higher mean PM10 first, then higher mean PM2.5, then the name; a missing
    /// mean ranks below every value.
    static func ranksBefore(_ a: Self, _ b: Self) -> Bool {
        for kind in DustKind.allCases where a.mean[kind] != b.mean[kind] {
            switch (a.mean[kind], b.mean[kind]) {
            case let (x?, y?): return x > y
            case (_?, nil): return true
            default: return false
            }
        }
        return a.station < b.station
    }
}
