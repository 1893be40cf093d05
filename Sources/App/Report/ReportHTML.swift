import Domain
import Foundation

/// Renders a `ReportModel` as one self-contained HTML page: inline CSS and SVG, no scripts, no
/// fonts or images fetched from anywhere, UTF-8, and a font list that reaches Noto Sans CJK KR
/// for Hangul. Pure: the same model gives the same bytes.
enum ReportHTML {
    static let fontFamily = "\"Noto Sans CJK KR\", \"Noto Sans KR\", \"Apple SD Gothic Neo\", \"Malgun Gothic\", \"Nanum Gothic\", sans-serif"

    static let css = """
    :root { color-scheme: light; }
    * { box-sizing: border-box; }
    body { font-family: \(fontFamily); margin: 0; background: #f9fafb; color: #111827; line-height: 1.45; }
    main { max-width: 1040px; margin: 0 auto; padding: 24px 28px 40px; background: #ffffff; }
    h1 { font-size: 26px; margin: 0 0 4px; }
    h3 { font-size: 14px; margin: 14px 0 2px; color: #374151; }
    h2 { font-size: 18px; margin: 32px 0 6px; padding-bottom: 4px; border-bottom: 1px solid #e5e7eb; }
    p.subtitle { color: #4b5563; margin: 0 0 16px; }
    p.note, figcaption { color: #4b5563; font-size: 13px; margin: 4px 0 0; }
    p.sparse { background: #fef3c7; border: 1px solid #f59e0b; border-radius: 6px; color: #78350f; padding: 8px 12px; margin: 8px 0 0; font-size: 14px; }
    td.station, table.ranking th:nth-child(2) { text-align: left; }
    .cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; margin: 16px 0; }
    .card { border: 1px solid #e5e7eb; border-radius: 8px; padding: 10px 12px; }
    .card .k { font-size: 12px; color: #6b7280; }
    .card .v { font-size: 22px; font-weight: 600; }
    .card .s { font-size: 12px; color: #6b7280; }
    figure { margin: 8px 0 0; }
    svg.chart { width: 100%; height: auto; display: block; font-family: \(fontFamily); }
    table { border-collapse: collapse; width: 100%; font-size: 14px; margin-top: 8px; }
    th, td { border-bottom: 1px solid #e5e7eb; padding: 5px 8px; text-align: right; }
    th:first-child, td:first-child, table.exceedances td:nth-child(2), table.exceedances th:nth-child(2) { text-align: left; }
    th { background: #f3f4f6; font-weight: 600; }
    .grades span { display: inline-block; padding: 1px 8px; border-radius: 10px; margin-right: 6px; font-size: 13px; }
    footer { margin-top: 32px; font-size: 12px; color: #6b7280; border-top: 1px solid #e5e7eb; padding-top: 10px; }
    @media print { body { background: #ffffff; } main { padding: 0; } h2 { break-after: avoid; } figure { break-inside: avoid; } }
    """

    static func render(_ model: ReportModel, version: String) -> String {
        let subjectKind = if case .station = model.subject { "Station" } else { "Province" }
        let title = "Air quality report — \(model.subject.name)"
        let days = model.days.map(\.date)
        let range = model.first == model.last ? model.first.description : "\(model.first) – \(model.last)"
        var body: [String] = []

        body.append("<header>")
        body.append("<h1>\(escapeHTML(title))</h1>")
        body.append("<p class=\"subtitle\">\(subjectKind) · \(escapeHTML(range)) (KST) · \(escapeHTML(model.subtitle))</p>")
        if model.isSparse {
            body.append("<p class=\"sparse\" id=\"sparse\">\(escapeHTML(sparseSentence(model)))</p>")
        }
        body.append("</header>")

        // Summary cards.
        let withData = model.hoursWithData
        body.append("<section class=\"cards\" id=\"summary\">")
        for kind in DustKind.allCases {
            let values = model.hours.compactMap { $0.pm[kind] }
            let mean = values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
            body.append(card(key: "\(name(kind)) mean", value: mean.map { ReportFormat.quantity($0, .concentration) } ?? "no data",
                             sub: values.max().map { "max \(ReportFormat.quantity($0, .concentration))" } ?? ""))
        }
        body.append(card(key: "Hours with PM10 / PM2.5", value: "\(ReportFormat.count(withData.pm10)) / \(ReportFormat.count(withData.pm25))",
                         sub: "of \(ReportFormat.count(model.hoursInRange)) hours (\(ReportFormat.percent(withData.pm10, of: model.hoursInRange)) / \(ReportFormat.percent(withData.pm25, of: model.hoursInRange)))"))
        if case .province = model.subject {
            body.append(card(key: model.stationCount == 1 ? "Station" : "Stations", value: ReportFormat.count(model.stationCount),
                             sub: "reporting in the range"))
        } else {
            body.append(card(key: "Days with data", value: "\(ReportFormat.count(model.daysWithData)) / \(ReportFormat.count(model.days.count))",
                             sub: "days with a PM10 or PM2.5 value"))
        }
        body.append("</section>")

        // Hourly charts.
        for kind in DustKind.allCases {
            body.append("<section id=\"hourly-\(kind.rawValue)\">")
            body.append("<h2>Hourly \(name(kind))</h2>")
            body.append("<figure>")
            body.append(SVGChart.hourly(kind, hours: model.hours, id: "hourly-\(kind.rawValue)"))
            body.append("<figcaption>\(escapeHTML(hourlyCaption(kind, model)))</figcaption>")
            body.append("</figure>")
            body.append(gradeSummary(kind, model))
            body.append("</section>")
        }

        // Stations of a province.
        if case .province = model.subject {
            body.append("<section id=\"station-ranking\">")
            body.append("<h2>Stations by mean PM10</h2>")
            body.append(stationRankingTable(model))
            body.append("<p class=\"note\">Means of each station's 1-hour values over \(escapeHTML(range)), µg/m³, highest PM10 first (then PM2.5). Hours: hours with a value, of \(ReportFormat.count(model.hoursInRange)). A mean over few hours says little.</p>")
            body.append("</section>")
        }

        // Intake.
        let profile = model.profile
        let rate = profile.model.walkingRate
        body.append("<section id=\"intake\">")
        body.append("<h2>Inhaled PM (intake)</h2>")
        body.append("<p class=\"note\">\(escapeHTML(intakeAssumption(profile, rate: rate)))</p>")
        body.append("<figure>")
        body.append("<h3>Inhaled per day, µg</h3>")
        body.append(SVGChart.groupedBars(
            id: "intake-daily", title: "Inhaled µg per day", unit: .micrograms, days: days,
            series: DustKind.allCases.map { kind in
                SVGChart.BarSeries(name: name(kind), colour: colour(kind),
                                   values: model.days.map { $0.intake[kind].micrograms },
                                   faded: Set(model.days.indices.filter { !model.days[$0].intake[kind].isComplete }))
            }))
        body.append("<figcaption>Daily intake over the walking hours. Faded bars: some walking hours had no measurement and add nothing (missing, not taken as 0 µg/m³); no bar: no walking hour had one.</figcaption>")
        body.append("</figure>")
        body.append("<figure>")
        body.append("<h3>Inhaled over the 7 days ending each day, µg</h3>")
        body.append(SVGChart.lines(
            id: "intake-weekly", title: "Inhaled µg over the 7 days ending each day", unit: .micrograms, days: days,
            series: DustKind.allCases.map { kind in
                SVGChart.BarSeries(name: name(kind), colour: colour(kind),
                                   values: model.days.map { $0.intakeWeek[kind].micrograms },
                                   faded: Set(model.days.indices.filter { !model.days[$0].intakeWeek[kind].isComplete }))
            }))
        body.append("<figcaption>7-day intake (D-6 … D) ending on each day. Hollow dots: incomplete weeks. PM2.5 is part of PM10, so the two are never added.</figcaption>")
        body.append("</figure>")
        body.append(intakeTable(model))
        body.append("</section>")

        // Share.
        body.append("<section id=\"share\">")
        body.append("<h2>PM2.5 and coarse share</h2>")
        body.append("<figure>")
        body.append(SVGChart.share(id: "share", days: model.days))
        body.append("<figcaption>Daily means over hours (and stations) reporting both PM10 and PM2.5 with PM2.5 ≤ PM10; the whole bar is PM10, the percentage is PM2.5's share.</figcaption>")
        body.append("</figure>")
        body.append("</section>")

        // Exceedances.
        body.append("<section id=\"exceedances\">")
        body.append("<h2>Exceedances</h2>")
        body.append(exceedanceTable(model))
        body.append("<p class=\"note\">Hours: 1-hour values strictly above the 24-hour level (an indicator, not a legal exceedance). Days: daily means above the level, judged only for days with at least \(DailyMeanRule.minimumHours) hours of data. Korean 환경기준 (24-h): PM10 \(Int(ReportLimits.korean(.pm10))), PM2.5 \(Int(ReportLimits.korean(.pm25))) µg/m³. WHO 2021 guideline (24-h): PM10 \(Int(ReportLimits.who(.pm10))), PM2.5 \(Int(ReportLimits.who(.pm25))) µg/m³.</p>")
        body.append("</section>")

        // Completeness.
        body.append("<section id=\"completeness\">")
        body.append("<h2>Data completeness</h2>")
        body.append("<p class=\"note\">\(escapeHTML(completenessSentence(model)))</p>")
        body.append("<figure>")
        body.append(SVGChart.completeness(id: "completeness", days: model.days))
        body.append("</figure>")
        body.append("</section>")

        // Careers.
        if let postings = model.postingsByRegion, !postings.isEmpty {
            body.append("<section id=\"careers\">")
            body.append("<h2>Job postings by region</h2>")
            body.append("<figure>")
            body.append(SVGChart.horizontalBars(id: "postings-by-region", title: "Job postings by region",
                                                items: postings.map { ($0.region, $0.count) }))
            body.append("<figcaption>Postings per region in the career tables (all postings loaded, not limited to the date range).</figcaption>")
            body.append("</figure>")
            body.append("</section>")
        }

        body.append("<footer>")
        body.append("<p>Data: AirKorea (한국환경공단 에어코리아) hourly measurements as loaded by feedline; hours are KST, labelled by their start. Grades: 환경부 bands in force on each day (PM10 0–30 좋음, 31–80 보통, 81–150 나쁨, ≥151 매우나쁨; PM2.5 since 2018-03-27 0–15, 16–35, 36–75, ≥76), values truncated to whole µg/m³ before grading.\(model.stationCount > 1 ? " Province values are means over the stations reporting each hour." : "")</p>")
        body.append("<p>Generated by feedline \(escapeHTML(version)) at \(escapeHTML(iso8601UTC(model.generatedAt))). Self-contained: no scripts and no network resources.</p>")
        body.append("</footer>")

        return """
        <!DOCTYPE html>
        <html lang="ko">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="feedline \(escapeHTML(version))">
        <title>\(escapeHTML(title)) (\(escapeHTML(range)))</title>
        <style>
        \(css)
        </style>
        </head>
        <body>
        <main>
        \(body.joined(separator: "\n"))
        </main>
        </body>
        </html>

        """
    }

    // MARK: Pieces

    static func name(_ kind: DustKind) -> String { kind == .pm10 ? "PM10" : "PM2.5" }
    static func colour(_ kind: DustKind) -> String { kind == .pm10 ? ReportPalette.pm10 : ReportPalette.pm25 }

    static func card(key: String, value: String, sub: String) -> String {
        "<div class=\"card\"><div class=\"k\">\(escapeHTML(key))</div><div class=\"v\">\(escapeHTML(value))</div><div class=\"s\">\(escapeHTML(sub))</div></div>"
    }

    static func hourlyCaption(_ kind: DustKind, _ model: ReportModel) -> String {
        let what = model.stationCount > 1 ? "Mean over the reporting stations" : "1-hour values"
        return "\(what), µg/m³, on the Korean grade bands (좋음, 보통, 나쁨, 매우나쁨); dashed: Korean 24-h standard \(Int(ReportLimits.korean(kind))) and WHO 2021 24-h guideline \(Int(ReportLimits.who(kind))) µg/m³. Gaps are hours without data."
    }

    static func gradeSummary(_ kind: DustKind, _ model: ReportModel) -> String {
        let counts = model.gradeHours[kind]
        let spans = AirKoreaGrade.allCases.map { grade in
            "<span style=\"background:\(ReportPalette.band(grade));color:\(ReportPalette.bandText(grade))\">\(grade.korean) \(counts[grade] ?? 0) h</span>"
        }
        return "<p class=\"grades note\">Hours by grade: \(spans.joined())</p>"
    }

    static func intakeAssumption(_ p: WalkingProfile, rate: Double) -> String {
        let hours = p.hours == Array(0...23) ? "every hour of the day" : "hours \(hourList(p.hours)) KST"
        let walkHours = min(1, p.metresPerHour / (p.speed * 1000))
        return "Inhaled µg = concentration (µg/m³) × \(ReportFormat.quantity(rate, .cubicMetresPerHour)) (\(p.activity.rawValue) activity, US EPA Exposure Factors Handbook 2011, Table 6-2, adults 21–<31) × time walked. Profile: \(ReportFormat.quantity(p.metresPerHour, .metres)) in \(hours) at \(ReportFormat.quantity(p.speed, .kilometresPerHour)), i.e. \(ReportFormat.quantity(walkHours, .walkingHours)) of walking per hour. This is an assumption about a person, not a measurement; \"inhaled\" is not \"deposited\"."
    }

    static func hourList(_ hours: [Int]) -> String {
        var ranges: [String] = []
        var i = 0
        while i < hours.count {
            var j = i
            while j + 1 < hours.count && hours[j + 1] == hours[j] + 1 { j += 1 }
            ranges.append(i == j ? "\(hours[i])" : "\(hours[i])–\(hours[j])")
            i = j + 1
        }
        return ranges.joined(separator: ", ")
    }

    static func intakeTable(_ model: ReportModel) -> String {
        var rows = ["<table class=\"intake\"><thead><tr><th>Day (KST)</th><th>PM10 µg</th><th>PM2.5 µg</th><th>walking hours with data, PM10 / PM2.5</th><th>PM10 µg, 7 days</th><th>PM2.5 µg, 7 days</th></tr></thead><tbody>"]
        for day in model.days {
            let i = day.intake, w = day.intakeWeek
            func shown(_ t: IntakeTotal) -> String { t.micrograms.map { ReportFormat.value($0, .micrograms) } ?? "–" }
            rows.append("<tr><td>\(day.date)</td><td>\(shown(i.pm10))</td><td>\(shown(i.pm25))</td><td>\(ReportFormat.count(i.pm10.walkingHoursWithData)) / \(ReportFormat.count(i.pm25.walkingHoursWithData)) of \(ReportFormat.count(i.pm10.walkingHours))</td><td>\(shown(w.pm10))</td><td>\(shown(w.pm25))</td></tr>")
        }
        rows.append("</tbody></table>")
        return rows.joined(separator: "\n")
    }

    static func exceedanceTable(_ model: ReportModel) -> String {
        var rows = ["<table class=\"exceedances\"><thead><tr><th>Fraction</th><th>Level</th><th>µg/m³</th><th>Hours above</th><th>Hours with data</th><th>Days above</th><th>Days judged</th></tr></thead><tbody>"]
        for e in model.exceedances {
            let counts = [e.hoursOver, e.hoursWithData, e.daysOver, e.daysJudged].map { "<td>\(ReportFormat.count($0))</td>" }.joined()
            rows.append("<tr><td>\(name(e.kind))</td><td>\(escapeHTML(e.limitName))</td><td>\(ReportFormat.count(Int(e.limit)))</td>\(counts)</tr>")
        }
        rows.append("</tbody></table>")
        return rows.joined(separator: "\n")
    }

    static func completenessSentence(_ model: ReportModel) -> String {
        let h = model.hoursWithData, total = model.hoursInRange
        let n = ReportFormat.count(total)
        var text = "PM10 has data in \(ReportFormat.count(h.pm10)) of \(n) hours (\(ReportFormat.percent(h.pm10, of: total))), PM2.5 in \(ReportFormat.count(h.pm25)) of \(n) (\(ReportFormat.percent(h.pm25, of: total)))."
        if model.stationCount > 1, let a = model.stationHourCompleteness.pm10, let b = model.stationHourCompleteness.pm25 {
            text += " Station-hours: PM10 \(ReportFormat.percent(a)), PM2.5 \(ReportFormat.percent(b)) of \(ReportFormat.count(model.stationCount)) stations × \(n) hours."
        }
        return text
    }

    /// The note at the top of a sparse report: how many hours and days of the range have data.
    static func sparseSentence(_ model: ReportModel) -> String {
        let hours = model.hoursWithAnyData, total = model.hoursInRange
        let emptyDays = model.days.count - model.daysWithData
        var text = "Sparse range: only \(ReportFormat.count(hours)) of \(ReportFormat.count(total)) hours have PM data (\(ReportFormat.percent(hours, of: total)))"
        text += emptyDays == 0 ? "." : "; \(ReportFormat.count(emptyDays)) of \(ReportFormat.count(model.days.count)) days have none."
        return text + " Means, intake and exceedances cover only those hours."
    }

    /// A province's stations, ranked (see `ReportModel.stations`).
    static func stationRankingTable(_ model: ReportModel) -> String {
        var rows = ["<table class=\"ranking\"><thead><tr><th>#</th><th>Station</th><th>PM10 µg/m³</th><th>PM2.5 µg/m³</th><th>Hours with PM10</th><th>Hours with PM2.5</th></tr></thead><tbody>"]
        for (i, s) in model.stations.enumerated() {
            func mean(_ kind: DustKind) -> String { s.mean[kind].map { ReportFormat.value($0, .concentration) } ?? "–" }
            rows.append("<tr><td>\(i + 1)</td><td class=\"station\">\(escapeHTML(s.station))</td><td>\(mean(.pm10))</td><td>\(mean(.pm25))</td><td>\(ReportFormat.count(s.hoursWithData.pm10))</td><td>\(ReportFormat.count(s.hoursWithData.pm25))</td></tr>")
        }
        if model.stations.isEmpty {
            rows.append("<tr><td></td><td class=\"station\">No station reported in this range.</td><td></td><td></td><td></td><td></td></tr>")
        }
        rows.append("</tbody></table>")
        return rows.joined(separator: "\n")
    }
}
