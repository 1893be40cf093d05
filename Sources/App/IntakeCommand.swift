import AirKorea
import ArgumentParser
import Domain
import Foundation
import Pipeline
import Storage

struct IntakeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intake",
        abstract: "Print a station's hourly, daily and 7-day inhaled PM10/PM2.5 for a walking profile.",
        discussion: """
        Inhaled µg = concentration (µg/m³) × inhalation rate (m³/h) × time walked (h), per hour, with time walked = distance ÷ speed (at most 1 h). Rates: US EPA Exposure Factors Handbook (2011), Chapter 6, Table 6-2, adults 21 to <31: sedentary 0.25, light 0.72, moderate 1.56, high 3.0 m³/h. The default walks 5000 m every hour at 5 km/h, i.e. a whole hour at the activity's rate. Walking hour h (h:00–h+1:00 KST) is paired with AirKorea's value for that same hour (labelled h+1:00). Totals cover the walking hours (--hours) only, and say how many of them had a measurement: `86.9 µg (3/4 walking hours)`. A walking hour without a measurement adds nothing and is never taken as 0; a total over walking hours none of which has a measurement is `-` (null in --json). The daily average divides the week by the days with data. PM10 and PM2.5 are reported separately: PM2.5 is part of PM10, so they are never added.

        --legacy computes the original FineDust app's formula instead (dust × metres × 0.036 × 0.01 per hour, under 500 m counts as indoors = 0, one-hour lag), in exact integer arithmetic.

        Examples:
          feedline intake --station 종로구 --date 2024-03-06 --activity light
          feedline intake --station 종로구 --date 2024-03-06 --hours 7-9,18-19
          feedline intake --station 종로구 --date 2024-03-06 --metres-per-hour 2000
          feedline intake --station 종로구 --date 2024-03-06 --legacy
          feedline intake --station 종로구 --date 2024-03-06 --json
        """)

    @Option(help: "Station name, as AirKorea spells it (e.g. 종로구).")
    var station: String

    @Option(help: ArgumentHelp("Day (KST) to report; the week is the 6 days before it and this day.", valueName: "YYYY-MM-DD"))
    var date: String

    @Option(help: "Activity level while walking: sedentary, light, moderate, high.")
    var activity: String = "moderate"

    @Option(help: ArgumentHelp("Metres walked in each walking hour.", valueName: "m"))
    var metresPerHour: Double = 5000

    @Option(help: ArgumentHelp("Walking speed used to turn metres into time.", valueName: "km/h"))
    var speed: Double = InhalationIntakeModel.defaultWalkingSpeed

    @Option(help: ArgumentHelp("Walking hours (KST, start of hour), as a range or list: 0-23, 7-9, 8,18.", valueName: "hours"))
    var hours: String = "0-23"

    @Flag(help: "Use the original app's formula (labelled LEGACY), in exact integer arithmetic.")
    var legacy = false

    @Flag(help: "Print one JSON object: the settings, the day's walking hours, the day, each of the 7 days and the week (µg; null where no walking hour had data).")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard LocalDate(iso: date) != nil else { throw ValidationError("--date must be a real date as YYYY-MM-DD, not '\(date)'.") }
        guard ActivityLevel(rawValue: activity) != nil else {
            throw ValidationError("--activity must be one of \(ActivityLevel.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard metresPerHour.isFinite, metresPerHour >= 0 else { throw ValidationError("--metres-per-hour must be 0 or more.") }
        guard speed.isFinite, speed > 0 else { throw ValidationError("--speed must be above 0 km/h.") }
        guard Self.parseHours(hours) != nil else { throw ValidationError("--hours must list hours 0…23, e.g. 0-23, 7-9 or 8,18.") }
    }

    static func parseHours(_ text: String) -> [Int]? {
        var result: Set<Int> = []
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !bounds.isEmpty, bounds.count <= 2, bounds.allSatisfy({ $0 != nil && (0...23).contains($0!) }) else { return nil }
            let low = bounds[0]!, high = bounds.last!!
            guard low <= high else { return nil }
            result.formUnion(low...high)
        }
        return result.isEmpty ? nil : result.sorted()
    }

    /// What the options ask for (after `validate()`).
    var request: IntakeRequest {
        IntakeRequest(station: station, date: LocalDate(iso: date)!, activity: ActivityLevel(rawValue: activity)!,
                      metresPerHour: metresPerHour, speed: speed, hours: Self.parseHours(hours)!, legacy: legacy)
    }

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db)
        try finish(Console(environment: env).intake(request, paths: paths, json: json))
    }
}

/// What `feedline intake` was asked for.
public struct IntakeRequest: Sendable {
    public var station: String
    public var date: LocalDate
    public var activity: ActivityLevel
    public var metresPerHour: Double
    public var speed: Double
    public var hours: [Int]
    public var legacy: Bool

    public init(station: String, date: LocalDate, activity: ActivityLevel, metresPerHour: Double, speed: Double, hours: [Int], legacy: Bool) {
        self.station = station; self.date = date; self.activity = activity; self.metresPerHour = metresPerHour
        self.speed = speed; self.hours = hours; self.legacy = legacy
    }
}

extension Console {
    /// Prints a station's day and week of inhaled PM, computed by the Domain intake model from
    /// the stored measurements.
    /// Exit: 0 printed; 1 no measurements for the station (with the close station names);
    /// 78 no database.
    public func intake(_ request: IntakeRequest, paths: Paths, json: Bool = false) -> ExitStatus {
        var request = request
        guard paths.postgresURL != nil || FileManager.default.fileExists(atPath: paths.database.path) else {
            environment.errorOutput("error: no database at \(paths.database.path); run `feedline run` first.")
            return .configuration
        }
        let store: any FeedlineStore
        do {
            store = try environment.openStore(paths, forWriting: false)  // a reader: never migrates or writes
        } catch {
            return databaseOpenFailure(error, paths: paths)
        }
        do {
            let database = try store.reading()
            if try !AirKoreaQueries.hasStation(database, request.station),
               let known = try? ReportReader(database: database).knownNames(of: .station(request.station)),
               let spelled = romanizedName(request.station, among: known) {
                request.station = spelled
            }
            guard try AirKoreaQueries.hasStation(database, request.station) else {
                environment.errorOutput("error: " + unknownStationMessage(request.station, paths: paths))
                return .failure
            }
            let first = request.date.adding(days: -6)
            // One extra day before, for the legacy one-hour lag at midnight.
            let pm = try AirKoreaQueries.hourlyPM(database, station: request.station, from: first.adding(days: -1), through: request.date)
            var distances: [HourSlot: Double] = [:]
            // Outside the walking hours nothing is walked: a known 0 m, so those hours are not
            // walking hours and count neither as data nor as missing.
            let walking = Set(request.hours)
            for day in 0...6 {
                for slot in first.adding(days: day).hourSlots {
                    distances[slot] = walking.contains(slot.hour) ? request.metresPerHour : 0
                }
            }
            let calculator = request.legacy
                ? IntakeCalculator(model: LegacyIntakeModel(arithmetic: .exactInteger), pairing: .legacyOneHourLag)
                : IntakeCalculator(model: InhalationIntakeModel(walkingActivity: request.activity, walkingSpeed: request.speed))
            let week = calculator.weekly(endingOn: request.date, concentrations: pm, distances: HourlySeries(distances))
            let report = IntakeReport(request: request, week: week)
            environment.output(json ? report.json : report.text)
            return .success
        } catch {
            environment.errorOutput("error: \(error)")
            return .failure
        }
    }
}

extension Console {
    /// `no measurements for station 'X' in DB; did you mean `Y`? Known: …` (the stations that
    /// have measurements, closest first, as `report` lists them).
    func unknownStationMessage(_ station: String, paths: Paths) -> String {
        let known = (try? environment.openReader(paths)).flatMap { try? ReportReader(database: $0).knownNames(of: .station(station)) } ?? []
        return unknownNameMessage("station", station, known: known,
                                  database: paths.postgresURL == nil ? environment.displayPath(paths.database) : paths.databaseName)
    }

    /// `no measurements for WHAT 'X' in DB; did you mean `Y`? Known: …`, closest names first; a
    /// Latin spelling of a known Hangul name is suggested too (`Jongno` → `종로구`).
    func unknownNameMessage(_ what: String, _ name: String, known: [String], database: String) -> String {
        let message = "no measurements for \(what) '\(name)' in \(database)"
        guard !known.isEmpty else { return message + "." }
        var close = Romanization.matches(name, among: known)
        close += Suggestions.close(to: name, among: known).filter { !close.contains($0) }
        let hint = close.isEmpty ? "." : "; did you mean " + close.prefix(3).map { "`\($0)`" }.joined(separator: " or ") + "?"
        let rest = close + known.filter { !close.contains($0) }
        return message + hint + " Known: \(rest.prefix(30).joined(separator: ", "))\(known.count > 30 ? ", …" : "")."
    }

    /// The one known name `typed` spells in Latin letters (`Jongno` → `종로구`), said on stderr;
    /// nil when it spells none or several.
    func romanizedName(_ typed: String, among known: [String]) -> String? {
        let found = Romanization.matches(typed, among: known)
        guard found.count == 1 else { return nil }
        environment.errorOutput("note: '\(typed)' is \(found[0]).")
        return found[0]
    }
}

/// Formats an intake result for the terminal.
struct IntakeReport {
    let request: IntakeRequest
    let week: DustPair<WeeklyIntake>

    var text: String {
        var lines: [String] = []
        let rate = InhalationRates.efh2011Adults21To31.rate(for: request.activity)
        if request.legacy {
            lines.append("LEGACY model (the original FineDust app): µg = PM × metres × 0.036 × 0.01 per hour, < 500 m = indoors = 0, one-hour lag; exact integer arithmetic.")
        } else {
            lines.append("Inhaled PM at \(request.station), activity \(request.activity.rawValue) (\(rate) m³/h, US EPA EFH 2011 Table 6-2), \(Self.num(request.metresPerHour, 0)) m per walking hour at \(Self.num(request.speed, 1)) km/h.")
        }
        let today10 = week.pm10.today, today25 = week.pm25.today
        let walking = zip(today10.hours, today25.hours).filter { $0.0.isWalking }
        lines.append("Walking hours (KST): " + (request.metresPerHour == 0
            ? "none (0 m per hour)" : request.hours.map { String($0) }.joined(separator: ",")))
        lines.append("")
        lines.append("\(request.date)  hour  PM10 µg/m³  PM2.5 µg/m³   PM10 µg  PM2.5 µg")
        for (h10, h25) in walking {
            lines.append("            \(Self.pad(String(format: "%02d", h10.walkingSlot.hour), 4))  \(Self.pad(Self.opt(h10.concentration), 10))  \(Self.pad(Self.opt(h25.concentration), 11))  \(Self.pad(Self.opt(h10.micrograms, 1), 8))  \(Self.pad(Self.opt(h25.micrograms, 1), 8))")
        }
        lines.append("")
        lines.append("day total   PM10 \(Self.total(today10.total))   PM2.5 \(Self.total(today25.total))")
        lines.append("")
        let width = week.pm10.days.map { Self.total($0.total).count }.max() ?? 0
        lines.append("7 days       \(Self.padRight("PM10", width))   PM2.5")
        for (d10, d25) in zip(week.pm10.days, week.pm25.days) {
            lines.append("\(d10.date)   \(Self.padRight(Self.total(d10.total), width))   \(Self.total(d25.total))")
        }
        lines.append("")
        lines.append("week total  PM10 \(Self.total(week.pm10.total))   PM2.5 \(Self.total(week.pm25.total))")
        lines.append("today ÷ week  PM10 \(Self.percent(week.pm10.todayRatio))   PM2.5 \(Self.percent(week.pm25.todayRatio))")
        lines.append("daily average (week ÷ days with data)  PM10 \(Self.average(week.pm10))   PM2.5 \(Self.average(week.pm25))")
        return lines.joined(separator: "\n")
    }

    /// The same figures as one JSON object (µg rounded to 0.001; a total over walking hours none
    /// of which has data is null, never 0). `hours` lists the walking hours; `hours_with_data` and
    /// `hours_expected` count walking hours.
    var json: String {
        func number(_ v: Double?) -> Any { v.map { ($0 * 1000).rounded() / 1000 } ?? NSNull() }
        func total(_ t: IntakeTotal) -> [String: Any] {
            ["ug": number(t.micrograms), "hours_with_data": t.walkingHoursWithData, "hours_expected": t.walkingHours]
        }
        let today10 = week.pm10.today, today25 = week.pm25.today
        let hours: [[String: Any]] = zip(today10.hours, today25.hours).filter { $0.0.isWalking }.map { h10, h25 in
            ["hour": h10.walkingSlot.hour, "pm10_ug_m3": number(h10.concentration), "pm25_ug_m3": number(h25.concentration),
             "pm10_ug": number(h10.micrograms), "pm25_ug": number(h25.micrograms)]
        }
        let days: [[String: Any]] = zip(week.pm10.days, week.pm25.days).map { d10, d25 in
            ["date": d10.date.description, "pm10": total(d10.total), "pm25": total(d25.total)]
        }
        var object: [String: Any] = [
            "station": request.station, "date": request.date.description,
            "model": request.legacy ? "legacy" : "epa-efh-2011", "activity": request.activity.rawValue,
            "metres_per_hour": number(request.metresPerHour), "speed_km_h": number(request.speed), "walking_hours": request.hours,
            "hours": hours,
            "day": ["pm10": total(today10.total), "pm25": total(today25.total)],
            "days": days,
            "week": ["pm10": total(week.pm10.total), "pm25": total(week.pm25.total),
                     "today_share": ["pm10": number(week.pm10.todayRatio), "pm25": number(week.pm25.todayRatio)],
                     "daily_average_ug": ["pm10": number(week.pm10.dailyAverageMicrograms), "pm25": number(week.pm25.dailyAverageMicrograms)],
                     "days_with_data": ["pm10": week.pm10.daysWithData, "pm25": week.pm25.daysWithData]],
        ]
        if !request.legacy { object["inhalation_m3_per_h"] = InhalationRates.efh2011Adults21To31.rate(for: request.activity) }
        return JSONText.encode(JSONValue(any: object))
    }

    /// A total with the walking hours it covers: `86.9 µg (3/4 walking hours)`; no data at all
    /// prints as `-`, never as 0.
    static func total(_ t: IntakeTotal) -> String {
        guard t.walkingHours > 0 else { return "\(num(0, 1)) µg (no walking hours)" }
        let covered = "(\(t.walkingHoursWithData)/\(t.walkingHours) walking hours)"
        return t.micrograms.map { "\(num($0, 1)) µg \(covered)" } ?? "- \(covered)"
    }
    /// The week's daily average with the days behind it: `45.2 µg (3/7 days)`, or `-`.
    static func average(_ week: WeeklyIntake) -> String {
        let days = "(\(week.daysWithData)/\(week.days.count) days)"
        return week.dailyAverageMicrograms.map { "\(num($0, 1)) µg \(days)" } ?? "- \(days)"
    }
    static func percent(_ r: Double?) -> String { r.map { "\(num($0 * 100, 1))%" } ?? "-" }
    static func opt(_ v: Double?, _ digits: Int = 0) -> String { v.map { num($0, digits) } ?? "-" }
    static func num(_ v: Double, _ digits: Int = 2) -> String {
        String(format: "%.\(digits)f", v)
    }
    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }
    static func padRight(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
