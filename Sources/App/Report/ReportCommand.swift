import ArgumentParser
import Domain
import Foundation
import Pipeline
import Storage

// MARK: - Command

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a self-contained HTML report (inline SVG charts) for a station or a province.",
        discussion: """
        The report shows hourly PM10 and PM2.5 on the Korean grade bands, the Korean 24-h standard and the WHO 2021 24-h guideline, daily and 7-day inhaled PM for a walking profile, the PM2.5 / coarse (PM10 − PM2.5) share, exceedance counts and data completeness; a province report also ranks its stations by mean PM10 and PM2.5. --postings adds job postings by region when career data is loaded. One HTML file: no scripts, no network resources; it opens offline and prints. The database is only read.

        The range defaults to the data present for the station or province: from the oldest to the newest of its 7 newest days with PM data (--days changes the 7), so no empty days pad either end. With --to, those days are counted back from --to; with --from, the range runs to the newest day with data. A range with fewer than 75% of its hours holding data is marked sparse at the top of the report.

        Intake defaults to 5000 m walked in every hour at 5 km/h and moderate activity (1.56 m³/h), i.e. µg = C × 1.56 × 1 h per hour, as `feedline intake` does; change the profile with --activity, --metres-per-hour, --hours and --speed.

        -o writes a new file, or replaces an earlier feedline report (a file whose first bytes carry feedline's generator mark); any other existing file is replaced only with --force. A directory, a device, FIFO or socket, the database being read and any SQLite file are always refused. A symbolic link is followed and its target checked the same way. A missing directory is created only with --mkdir. The file is written whole (a temporary file renamed into place), so a failed write leaves the old one. Exit 64 for a refused -o path, 1 when the file system refuses the write.

        Examples:
          feedline report --station 종로구
          feedline report --station 종로구 --from 2024-03-01 --to 2024-03-31
          feedline report --province 서울 --days 14 -o seoul.html
          feedline report --station 종로구 --hours 7-9,18-19 --metres-per-hour 2000
          feedline report --province 서울 --postings
        """)

    @Option(help: ArgumentHelp("Station name, as AirKorea spells it (e.g. 종로구).", valueName: "name"))
    var station: String?

    @Option(help: ArgumentHelp("Province (시도), e.g. 서울: means over its stations.", valueName: "name"))
    var province: String?

    @Option(help: ArgumentHelp("First day (KST). Default: the oldest of the --days newest days with data.", valueName: "YYYY-MM-DD"))
    var from: String?

    @Option(help: ArgumentHelp("Last day (KST). Default: the newest day with data.", valueName: "YYYY-MM-DD"))
    var to: String?

    @Option(help: ArgumentHelp("Days with data the range reaches back over when --from is not given.", valueName: "n"))
    var days: Int = 7

    @Flag(help: "Add a panel of job postings by region (when career data is loaded).")
    var postings = false

    @Option(name: .shortAndLong, help: ArgumentHelp("HTML file to write. Default: report-NAME-FROM_TO.html.", valueName: "path"))
    var out: String?

    @Flag(help: "Replace an existing -o file that is not a feedline report (never a directory, device or SQLite file).")
    var force = false

    @Flag(name: .customLong("mkdir"), help: "Create the missing directories of the -o path.")
    var makeDirectories = false

    @Option(help: "Activity level while walking: sedentary, light, moderate, high.")
    var activity: String = "moderate"

    @Option(help: ArgumentHelp("Metres walked in each walking hour.", valueName: "m"))
    var metresPerHour: Double = 5000

    @Option(help: ArgumentHelp("Walking speed used to turn metres into time.", valueName: "km/h"))
    var speed: Double = InhalationIntakeModel.defaultWalkingSpeed

    @Option(help: ArgumentHelp("Walking hours (KST, start of hour), as a range or list: 0-23, 7-9, 8,18.", valueName: "hours"))
    var hours: String = "0-23"

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (station == nil) != (province == nil) else { throw ValidationError("Give exactly one of --station NAME or --province NAME.") }
        if let from, LocalDate(iso: from) == nil { throw ValidationError("--from must be a real date as YYYY-MM-DD, not '\(from)'.") }
        if let to, LocalDate(iso: to) == nil { throw ValidationError("--to must be a real date as YYYY-MM-DD, not '\(to)'.") }
        if let f = from.flatMap(LocalDate.init(iso:)), let t = to.flatMap(LocalDate.init(iso:)), f > t {
            throw ValidationError("--from \(f) is after --to \(t).")
        }
        guard (1...ReportRequest.maxDays).contains(days) else { throw ValidationError("--days must be 1…\(ReportRequest.maxDays).") }
        guard ActivityLevel(rawValue: activity) != nil else {
            throw ValidationError("--activity must be one of \(ActivityLevel.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard metresPerHour.isFinite, metresPerHour >= 0 else { throw ValidationError("--metres-per-hour must be 0 or more.") }
        guard speed.isFinite, speed > 0 else { throw ValidationError("--speed must be above 0 km/h.") }
        guard IntakeCommand.parseHours(hours) != nil else { throw ValidationError("--hours must list hours 0…23, e.g. 0-23, 7-9 or 8,18.") }
    }

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db)
        let subject: ReportSubject = if let station { .station(station) } else { .province(province ?? "") }
        let request = ReportRequest(
            subject: subject, from: from.flatMap(LocalDate.init(iso:)), to: to.flatMap(LocalDate.init(iso:)), days: days, output: out,
            profile: WalkingProfile(activity: ActivityLevel(rawValue: activity)!, metresPerHour: metresPerHour, speed: speed,
                                    hours: IntakeCommand.parseHours(hours)!),
            force: force, makeDirectories: makeDirectories, postings: postings)
        try finish(Console(environment: env).report(request, paths: paths))
    }
}

// MARK: - Use case

/// What `feedline report` was asked for.
public struct ReportRequest: Sendable {
    /// The longest range a report covers.
    public static let maxDays = 366

    public var subject: ReportSubject
    public var from: LocalDate?
    public var to: LocalDate?
    /// Days with data the range reaches back over when `from` is nil (see `range`).
    public var days: Int
    /// Output file (relative to the working directory); nil: `report-NAME-FROM_TO.html`.
    public var output: String?
    public var profile: WalkingProfile
    /// Replace an existing output file that is not a feedline report (never a directory, device
    /// or SQLite file).
    public var force: Bool
    /// Create the output's missing parent directories.
    public var makeDirectories: Bool
    /// Add the job postings by region panel.
    public var postings: Bool

    public init(subject: ReportSubject, from: LocalDate? = nil, to: LocalDate? = nil, days: Int = 7, output: String? = nil,
                profile: WalkingProfile = .wholeHourModerate, force: Bool = false, makeDirectories: Bool = false,
                postings: Bool = false) {
        self.subject = subject
        self.from = from
        self.to = to
        self.days = days
        self.output = output
        self.profile = profile
        self.force = force
        self.makeDirectories = makeDirectories
        self.postings = postings
    }

    /// The days to report. Explicit `from`/`to` are kept. Otherwise the range ends on `to` or
    /// on the newest day with data, and starts on the oldest of `dataDays` (the subject's newest
    /// `days` days with PM data up to that end, newest first) that lies within `maxDays` of the
    /// end — so neither end is an empty padding day. Without data days, `days` calendar days.
    func range(newest: LocalDate, dataDays: [LocalDate]) -> (first: LocalDate, last: LocalDate) {
        let last = to ?? dataDays.first ?? newest
        if let from { return (from, last) }
        let earliest = last.adding(days: -(Self.maxDays - 1))
        let first = dataDays.prefix(days).last { $0 >= earliest && $0 <= last } ?? last.adding(days: -(days - 1))
        return (first, last)
    }
}

extension Console {
    /// Writes the HTML report (see `OutputFile` for where it may go). Exit: 0 written;
    /// 1 unknown station/province, bad range or a failed write; 64 an output path feedline does
    /// not write to; 78 no database.
    public func report(_ request: ReportRequest, paths: Paths) -> ExitStatus {
        let err = environment.errorOutput
        let database: any SQLReading
        do { database = try environment.openReader(paths) } catch {
            if paths.postgresURL != nil { return databaseOpenFailure(error, paths: paths) }
            err("error: \(error)")
            return .configuration
        }
        do {
            let source = ReportReader(database: database)
            var request = request
            if try source.newestDate(of: request.subject) == nil, let spelled = romanizedName(request.subject.name, among: try source.knownNames(of: request.subject)) {
                if case .station = request.subject { request.subject = .station(spelled) } else { request.subject = .province(spelled) }
            }
            guard let found = try source.newestDate(of: request.subject) else {
                let what = if case .station = request.subject { "station" } else { "province" }
                err("error: " + unknownNameMessage(what, request.subject.name, known: try source.knownNames(of: request.subject), database: paths.databaseName))
                return .failure
            }
            let dataDays = try source.daysWithData(of: request.subject, through: request.to, limit: request.from == nil ? request.days : 1)
            let (first, last) = request.range(newest: found, dataDays: dataDays)
            guard first <= last else {
                err("error: the range \(first) – \(last) is empty (--from is after the newest day with data, \(found)).")
                return .failure
            }
            guard last.daysSinceEpoch - first.daysSinceEpoch < ReportRequest.maxDays else {
                err("error: a report covers at most \(ReportRequest.maxDays) days; \(first) – \(last) is longer.")
                return .failure
            }
            let rows = try source.stationHours(of: request.subject, from: first.adding(days: -6), through: last)
            let postings = request.postings ? try source.postingsByRegion() : nil
            if request.postings && (postings ?? []).isEmpty {
                err("note: --postings: no job postings are loaded in \(paths.databaseName); the report has no postings panel.")
            }
            let model = ReportModel.build(subject: request.subject, subtitle: try source.subtitle(of: request.subject),
                                          first: first, last: last, rows: rows, profile: request.profile,
                                          postingsByRegion: postings, generatedAt: environment.clock())
            let html = ReportHTML.render(model, version: FeedlineCommand.configuration.version)

            let slug = request.subject.name.map { "/\\:*?\"<>| ".contains($0) ? "_" : $0 }
            let file = environment.resolve(request.output ?? "report-\(String(slug))-\(first)_\(last).html")
            do throws(OutputFile.Problem) {
                let output = try OutputFile.prepare(file, kind: .report, database: OutputFile.Database(paths.database),
                                                    force: request.force, makeDirectories: request.makeDirectories)
                try output.write(Data(html.utf8))
            } catch {
                err("error: \(error)")
                return error.kind == .refused ? .usage : .failure
            }

            let h = model.hoursWithData, total = ReportFormat.count(model.hoursInRange)
            environment.output("wrote \(file.path)  \(first) – \(last)  hours with PM10 \(ReportFormat.count(h.pm10))/\(total), PM2.5 \(ReportFormat.count(h.pm25))/\(total)")
            if h.pm10 == 0 && h.pm25 == 0 {
                err("warning: no PM data for '\(request.subject.name)' in \(first) – \(last); the newest day with data is \(found).")
            } else if model.isSparse {
                err("note: \(ReportHTML.sparseSentence(model))")
            }
            return .success
        } catch {
            err("error: \(error)")
            return .failure
        }
    }
}
