import Domain
import Foundation

// MARK: - Escaping and numbers

/// Text for HTML and inline SVG: `&`, `<`, `>`, `"` and `'` escaped (safe in text and in
/// double- or single-quoted attributes).
func escapeHTML(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for c in text.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}

/// A coordinate with at most one decimal (`12`, `12.5`), for compact SVG.
func coordinate(_ v: Double) -> String {
    let r = (v * 10).rounded() / 10
    return r == r.rounded() ? String(Int(r)) : String(format: "%.1f", r)
}


// MARK: - Colours

/// The report's palette: Korean grade band colours (AirKorea's blue, green, yellow, red, light),
/// and one colour per fraction used in every chart.
enum ReportPalette {
    static func band(_ grade: AirKoreaGrade) -> String {
        switch grade {
        case .good: "#dbeafe"
        case .moderate: "#dcfce7"
        case .bad: "#fef3c7"
        case .veryBad: "#fee2e2"
        }
    }

    static func bandText(_ grade: AirKoreaGrade) -> String {
        switch grade {
        case .good: "#1d4ed8"
        case .moderate: "#15803d"
        case .bad: "#b45309"
        case .veryBad: "#b91c1c"
        }
    }

    static let pm10 = "#1e40af"
    static let pm25 = "#c2410c"
    static let coarse = "#93c5fd"
    static let line = "#111827"
    static let grid = "#e5e7eb"
    static let axis = "#6b7280"
    static let korean = "#7f1d1d"
    static let who = "#4c1d95"
}

// MARK: - Charts

/// SVG charts drawn by feedline itself: inline `<svg>` elements (no scripts, no external
/// resources, no `xmlns` URL needed inside HTML), scaled to the page width through `viewBox`.
/// Each chart is an `<svg class="chart" id="chart-…">` whose parts are `<g class="…">` groups
/// (`grade-bands`, `axis-x`, `axis-y`, `series pm10`, `limits`, `bars`, …) so tests and the
/// headless check can find them.
enum SVGChart {
    static let width = 960.0

    struct Frame {
        var left = 52.0, right = 96.0, top = 26.0, bottom = 34.0
        var height: Double
        var plotWidth: Double { SVGChart.width - left - right }
        var plotHeight: Double { height - top - bottom }
        var plotBottom: Double { height - bottom }
        func y(_ v: Double, max: Double) -> Double { plotBottom - (max > 0 ? v / max : 0) * plotHeight }
    }

    /// A round upper bound and tick step for values up to `value`.
    static func niceScale(_ value: Double, ticks: Int = 5) -> (max: Double, step: Double) {
        let v = Swift.max(value, 1)
        let raw = v / Double(ticks)
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        return ((v / step).rounded(.up) * step, step)
    }

    static func open(id: String, height: Double, title: String) -> String {
        """
        <svg class="chart" id="chart-\(escapeHTML(id))" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-labelledby="chart-\(escapeHTML(id))-title" preserveAspectRatio="xMidYMid meet">
        <title id="chart-\(escapeHTML(id))-title">\(escapeHTML(title))</title>
        """
    }

    static func text(_ s: String, x: Double, y: Double, anchor: String = "start", size: Double = 11, fill: String = ReportPalette.axis,
                     weight: String? = nil) -> String {
        "<text x=\"\(coordinate(x))\" y=\"\(coordinate(y))\" text-anchor=\"\(anchor)\" font-size=\"\(coordinate(size))\" fill=\"\(fill)\"\(weight.map { " font-weight=\"\($0)\"" } ?? "")>\(escapeHTML(s))</text>"
    }

    static func yAxis(_ frame: Frame, max: Double, step: Double, unit: String) -> String {
        var parts = ["<g class=\"axis-y\">"]
        var v = 0.0
        while v <= max + step / 1000 {
            let y = frame.y(v, max: max)
            parts.append("<line x1=\"\(coordinate(frame.left))\" x2=\"\(coordinate(frame.left + frame.plotWidth))\" y1=\"\(coordinate(y))\" y2=\"\(coordinate(y))\" stroke=\"\(ReportPalette.grid)\" stroke-width=\"1\"/>")
            parts.append(text(ReportFormat.tick(v, step: step), x: frame.left - 6, y: y + 4, anchor: "end"))
            v += step
        }
        parts.append(text(unit, x: frame.left - 6, y: frame.top - 12, anchor: "end", size: 10))
        parts.append("</g>")
        return parts.joined(separator: "\n")
    }

    /// Day ticks for `count` days, each `dayWidth` wide from `frame.left`.
    static func dayAxis(_ frame: Frame, days: [LocalDate], separators: Bool) -> String {
        let dayWidth = frame.plotWidth / Double(Swift.max(days.count, 1))
        let every = Swift.max(1, Int((Double(days.count) / 16).rounded(.up)))
        var parts = ["<g class=\"axis-x\">"]
        for (i, day) in days.enumerated() {
            let x = frame.left + Double(i) * dayWidth
            if separators && i > 0 {
                parts.append("<line x1=\"\(coordinate(x))\" x2=\"\(coordinate(x))\" y1=\"\(coordinate(frame.top))\" y2=\"\(coordinate(frame.plotBottom))\" stroke=\"#9ca3af\" stroke-width=\"0.6\" stroke-dasharray=\"2 3\"/>")
            }
            if i % every == 0 {
                let text = String(day.description.dropFirst(5))  // MM-DD
                parts.append(self.text(text, x: x + dayWidth / 2, y: frame.plotBottom + 15, anchor: "middle"))
            }
        }
        parts.append("<line x1=\"\(coordinate(frame.left))\" x2=\"\(coordinate(frame.left + frame.plotWidth))\" y1=\"\(coordinate(frame.plotBottom))\" y2=\"\(coordinate(frame.plotBottom))\" stroke=\"\(ReportPalette.axis)\" stroke-width=\"1\"/>")
        parts.append("</g>")
        return parts.joined(separator: "\n")
    }

    // MARK: Hourly concentration with grade bands

    /// Hourly PM (`kind`) over the report's hours, on the Korean grade bands in force each day,
    /// with the Korean 24-h standard and the WHO 24-h guideline as dashed lines. Missing hours
    /// break the line; isolated hours show as dots.
    static func hourly(_ kind: DustKind, hours: [ReportModel.Hour], id: String) -> String {
        var frame = Frame(height: 250)
        frame.right = 104
        let values = hours.map { $0.pm[kind] }
        let dataMax = values.compactMap { $0 }.max() ?? 0
        let (yMax, step) = niceScale(Swift.max(dataMax * 1.08, ReportLimits.korean(kind) * 1.1))
        let n = Swift.max(hours.count, 1)
        let slotWidth = frame.plotWidth / Double(n)
        func x(_ i: Int) -> Double { frame.left + (Double(i) + 0.5) * slotWidth }
        let name = kind == .pm10 ? "PM10" : "PM2.5"

        var parts = [open(id: id, height: frame.height, title: "Hourly \(name), µg/m³, on the Korean grade bands")]

        // Bands, per run of days sharing one table.
        parts.append("<g class=\"grade-bands\">")
        var start = 0
        while start < hours.count {
            let table = KoreanGrading.table(for: kind, on: hours[start].slot.date)
            var end = start
            func bands(_ t: KoreanGradeTable) -> [Int] { [t.goodMax, t.moderateMax, t.badMax] }
            while end < hours.count && bands(KoreanGrading.table(for: kind, on: hours[end].slot.date)) == bands(table) { end += 1 }
            let x0 = frame.left + Double(start) * slotWidth, x1 = frame.left + Double(end) * slotWidth
            let edges: [(AirKoreaGrade, Double, Double)] = [
                (.good, 0, Double(table.goodMax + 1)), (.moderate, Double(table.goodMax + 1), Double(table.moderateMax + 1)),
                (.bad, Double(table.moderateMax + 1), Double(table.badMax + 1)), (.veryBad, Double(table.badMax + 1), .infinity),
            ]
            for (grade, low, high) in edges where low < yMax {
                let top = frame.y(Swift.min(high, yMax), max: yMax), bottom = frame.y(low, max: yMax)
                parts.append("<rect class=\"band grade-\(grade.rawValue)\" x=\"\(coordinate(x0))\" y=\"\(coordinate(top))\" width=\"\(coordinate(x1 - x0))\" height=\"\(coordinate(bottom - top))\" fill=\"\(ReportPalette.band(grade))\"/>")
                if end == hours.count && bottom - top >= 12 {
                    let range = high.isFinite ? "\(Int(low))–\(Int(high) - 1)" : "≥\(Int(low))"
                    parts.append(text("\(grade.korean) \(range)", x: x1 + 6, y: (top + bottom) / 2 + 4, size: 11, fill: ReportPalette.bandText(grade)))
                }
            }
            start = end
        }
        parts.append("</g>")

        parts.append(yAxis(frame, max: yMax, step: step, unit: "µg/m³"))
        let days = stride(from: 0, to: hours.count, by: 24).map { hours[$0].slot.date }
        parts.append(dayAxis(frame, days: days, separators: true))

        // Limits.
        parts.append("<g class=\"limits\">")
        for (label, value, colour) in [("KR 24-h standard \(Int(ReportLimits.korean(kind)))", ReportLimits.korean(kind), ReportPalette.korean),
                                       ("WHO 24-h \(Int(ReportLimits.who(kind)))", ReportLimits.who(kind), ReportPalette.who)] where value <= yMax {
            let y = frame.y(value, max: yMax)
            parts.append("<line class=\"limit\" x1=\"\(coordinate(frame.left))\" x2=\"\(coordinate(frame.left + frame.plotWidth))\" y1=\"\(coordinate(y))\" y2=\"\(coordinate(y))\" stroke=\"\(colour)\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>")
            parts.append(text(label, x: frame.left + 6, y: y - 4, size: 10, fill: colour)
                .replacingOccurrences(of: "<text ", with: "<text paint-order=\"stroke\" stroke=\"#ffffff\" stroke-width=\"3\" "))
        }
        parts.append("</g>")

        // The series.
        let colour = kind == .pm10 ? ReportPalette.pm10 : ReportPalette.pm25
        var path = ""
        var dots: [String] = []
        for (i, value) in values.enumerated() {
            guard let value else { continue }
            let point = "\(coordinate(x(i))) \(coordinate(frame.y(Swift.min(value, yMax), max: yMax)))"
            let previous = i > 0 && values[i - 1] != nil
            let next = i + 1 < values.count && values[i + 1] != nil
            path += (previous ? " L" : " M") + point
            if !previous && !next || hours.count <= 24 * 14 {
                dots.append("<circle cx=\"\(coordinate(x(i)))\" cy=\"\(coordinate(frame.y(Swift.min(value, yMax), max: yMax)))\" r=\"\(!previous && !next ? "3" : "1.8")\" fill=\"\(colour)\"/>")
            }
        }
        parts.append("<g class=\"series \(kind.rawValue)\">")
        if !path.isEmpty {
            parts.append("<path d=\"\(path.dropFirst())\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.6\" stroke-linejoin=\"round\"/>")
        }
        parts.append(contentsOf: dots)
        if values.allSatisfy({ $0 == nil }) {
            parts.append(text("No \(name) data in this range", x: frame.left + frame.plotWidth / 2, y: frame.top + frame.plotHeight / 2, anchor: "middle", size: 14))
        }
        parts.append("</g>")
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    // MARK: Grouped daily bars

    struct BarSeries {
        var name: String
        var colour: String
        /// One value per day; nil draws nothing.
        var values: [Double?]
        /// Days drawn faded (incomplete data), by index.
        var faded: Set<Int> = []
    }

    /// Bars per day, side by side per series; faded bars mark incomplete days.
    static func groupedBars(id: String, title: String, unit: ReportUnit, days: [LocalDate], series: [BarSeries],
                            valueLabels: Bool = true) -> String {
        let frame = Frame(height: 240)
        let dataMax = series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        let (yMax, step) = niceScale(dataMax * 1.12)
        let dayWidth = frame.plotWidth / Double(Swift.max(days.count, 1))
        let barWidth = Swift.min(28, dayWidth * 0.8 / Double(Swift.max(series.count, 1)))
        var parts = [open(id: id, height: frame.height, title: title)]
        parts.append(yAxis(frame, max: yMax, step: step, unit: unit.symbol))
        parts.append(dayAxis(frame, days: days, separators: false))
        parts.append("<g class=\"bars\">")
        for (s, one) in series.enumerated() {
            parts.append("<g class=\"series \(escapeHTML(one.name))\">")
            for (i, value) in one.values.enumerated() {
                guard let value else { continue }
                let groupLeft = frame.left + Double(i) * dayWidth + (dayWidth - barWidth * Double(series.count)) / 2
                let x = groupLeft + Double(s) * barWidth
                let y = frame.y(value, max: yMax)
                let faded = one.faded.contains(i)
                parts.append("<rect x=\"\(coordinate(x + 1))\" y=\"\(coordinate(y))\" width=\"\(coordinate(barWidth - 2))\" height=\"\(coordinate(frame.plotBottom - y))\" fill=\"\(one.colour)\"\(faded ? " fill-opacity=\"0.35\" stroke=\"\(one.colour)\" stroke-dasharray=\"3 2\"" : "")><title>\(escapeHTML("\(one.name) \(days[i]): \(ReportFormat.quantity(value, unit))\(faded ? " (incomplete)" : "")"))</title></rect>")
                if valueLabels && days.count <= 16 {
                    parts.append(text(ReportFormat.value(value, unit), x: x + barWidth / 2, y: y - 3, anchor: "middle", size: 9, fill: ReportPalette.line))
                }
            }
            parts.append("</g>")
        }
        parts.append("</g>")
        parts.append(legend(frame, series.map { ($0.name, $0.colour) }))
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// A legend at the top right, outside the plot.
    static func legend(_ frame: Frame, _ items: [(String, String)]) -> String {
        var parts = ["<g class=\"legend\">"]
        for (i, item) in items.enumerated() {
            let y = frame.top + 8 + Double(i) * 16
            let x = width - frame.right + 8
            parts.append("<rect x=\"\(coordinate(x))\" y=\"\(coordinate(y - 8))\" width=\"10\" height=\"10\" fill=\"\(item.1)\"/>")
            parts.append(text(item.0, x: x + 14, y: y + 1, size: 11, fill: ReportPalette.line))
        }
        parts.append("</g>")
        return parts.joined(separator: "\n")
    }

    // MARK: 7-day lines

    /// One line per series over the days (e.g. the 7-day intake ending each day); hollow dots
    /// mark days whose value is incomplete.
    static func lines(id: String, title: String, unit: ReportUnit, days: [LocalDate], series: [BarSeries]) -> String {
        let frame = Frame(height: 220)
        let dataMax = series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        let (yMax, step) = niceScale(dataMax * 1.1)
        let dayWidth = frame.plotWidth / Double(Swift.max(days.count, 1))
        func x(_ i: Int) -> Double { frame.left + (Double(i) + 0.5) * dayWidth }
        var parts = [open(id: id, height: frame.height, title: title)]
        parts.append(yAxis(frame, max: yMax, step: step, unit: unit.symbol))
        parts.append(dayAxis(frame, days: days, separators: false))
        parts.append("<g class=\"lines\">")
        for one in series {
            parts.append("<g class=\"series \(escapeHTML(one.name))\">")
            var path = ""
            for (i, value) in one.values.enumerated() {
                guard let value else { continue }
                let previous = i > 0 && one.values[i - 1] != nil
                path += (previous ? " L" : " M") + "\(coordinate(x(i))) \(coordinate(frame.y(value, max: yMax)))"
            }
            if !path.isEmpty {
                parts.append("<path d=\"\(path.dropFirst())\" fill=\"none\" stroke=\"\(one.colour)\" stroke-width=\"2\"/>")
            }
            for (i, value) in one.values.enumerated() {
                guard let value else { continue }
                let hollow = one.faded.contains(i)
                parts.append("<circle cx=\"\(coordinate(x(i)))\" cy=\"\(coordinate(frame.y(value, max: yMax)))\" r=\"3.5\" fill=\"\(hollow ? "#ffffff" : one.colour)\" stroke=\"\(one.colour)\" stroke-width=\"1.5\"><title>\(escapeHTML("\(one.name) week ending \(days[i]): \(ReportFormat.quantity(value, unit))\(hollow ? " (incomplete)" : "")"))</title></circle>")
            }
            parts.append("</g>")
        }
        parts.append("</g>")
        parts.append(legend(frame, series.map { ($0.name, $0.colour) }))
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    // MARK: PM2.5 / coarse share

    /// Stacked bars per day: PM2.5 at the bottom, coarse (PM10 − PM2.5) on top — together the
    /// day's PM10 over paired hours — with PM2.5's share printed above.
    static func share(id: String, days: [ReportModel.Day]) -> String {
        let frame = Frame(height: 230)
        let totals = days.map { d -> Double? in
            guard let f = d.pairedPM25, let c = d.pairedCoarse else { return nil }
            return f + c
        }
        let (yMax, step) = niceScale((totals.compactMap { $0 }.max() ?? 0) * 1.15)
        let dayWidth = frame.plotWidth / Double(Swift.max(days.count, 1))
        let barWidth = Swift.min(36, dayWidth * 0.6)
        var parts = [open(id: id, height: frame.height, title: "Daily mean PM2.5 and coarse (PM10 − PM2.5), µg/m³")]
        parts.append(yAxis(frame, max: yMax, step: step, unit: "µg/m³"))
        parts.append(dayAxis(frame, days: days.map(\.date), separators: false))
        parts.append("<g class=\"bars share\">")
        for (i, day) in days.enumerated() {
            guard let fine = day.pairedPM25, let coarse = day.pairedCoarse else { continue }
            let x = frame.left + Double(i) * dayWidth + (dayWidth - barWidth) / 2
            let yFine = frame.y(fine, max: yMax), yTotal = frame.y(fine + coarse, max: yMax)
            parts.append("<rect class=\"fine\" x=\"\(coordinate(x))\" y=\"\(coordinate(yFine))\" width=\"\(coordinate(barWidth))\" height=\"\(coordinate(frame.plotBottom - yFine))\" fill=\"\(ReportPalette.pm25)\"><title>\(escapeHTML("\(day.date) PM2.5 \(ReportFormat.quantity(fine, .concentration))"))</title></rect>")
            parts.append("<rect class=\"coarse\" x=\"\(coordinate(x))\" y=\"\(coordinate(yTotal))\" width=\"\(coordinate(barWidth))\" height=\"\(coordinate(yFine - yTotal))\" fill=\"\(ReportPalette.coarse)\"><title>\(escapeHTML("\(day.date) coarse \(ReportFormat.quantity(coarse, .concentration))"))</title></rect>")
            if let share = day.fineShare, days.count <= 20 {
                parts.append(text(ReportFormat.percent(share), x: x + barWidth / 2, y: yTotal - 4, anchor: "middle", size: 10, fill: ReportPalette.line))
            }
        }
        parts.append("</g>")
        parts.append(legend(frame, [("PM2.5", ReportPalette.pm25), ("coarse", ReportPalette.coarse)]))
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    // MARK: Completeness

    /// A strip per fraction: one cell per day shaded by hours with data ÷ 24, labelled `h/24`.
    static func completeness(id: String, days: [ReportModel.Day]) -> String {
        var frame = Frame(height: 110)
        frame.top = 10
        frame.bottom = 30
        let dayWidth = frame.plotWidth / Double(Swift.max(days.count, 1))
        let rowHeight = 30.0
        var parts = [open(id: id, height: frame.height, title: "Hours with data per day (of 24)")]
        parts.append("<g class=\"completeness\">")
        for (r, kind) in DustKind.allCases.enumerated() {
            let y = frame.top + Double(r) * (rowHeight + 6)
            parts.append(text(kind == .pm10 ? "PM10" : "PM2.5", x: frame.left - 6, y: y + rowHeight / 2 + 4, anchor: "end", fill: ReportPalette.line))
            for (i, day) in days.enumerated() {
                let hours = day.hoursWithData[kind]
                let fraction = Double(hours) / 24
                let x = frame.left + Double(i) * dayWidth
                parts.append("<rect class=\"cell\" x=\"\(coordinate(x + 1))\" y=\"\(coordinate(y))\" width=\"\(coordinate(dayWidth - 2))\" height=\"\(coordinate(rowHeight))\" fill=\"\(completenessColour(fraction))\"><title>\(escapeHTML("\(kind == .pm10 ? "PM10" : "PM2.5") \(day.date): \(hours) of 24 hours"))</title></rect>")
                if days.count <= 31 {
                    parts.append(text("\(hours)", x: x + dayWidth / 2, y: y + rowHeight / 2 + 4, anchor: "middle", size: 10,
                                      fill: fraction > 0.6 ? "#ffffff" : ReportPalette.line))
                }
            }
        }
        parts.append("</g>")
        var axisFrame = frame
        axisFrame.bottom = 28
        parts.append(dayAxis(axisFrame, days: days.map(\.date), separators: false))
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// Grey (no data) through green (every hour).
    static func completenessColour(_ fraction: Double) -> String {
        if fraction <= 0 { return "#f3f4f6" }
        let f = Swift.min(1, fraction)
        // #bbf7d0 → #15803d
        let from = (0xbb, 0xf7, 0xd0), to = (0x15, 0x80, 0x3d)
        func mix(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * f).rounded()) }
        return String(format: "#%02x%02x%02x", mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
    }

    // MARK: Horizontal bars

    /// Horizontal bars, one per item, largest first (e.g. job postings by region).
    static func horizontalBars(id: String, title: String, items: [(String, Int)]) -> String {
        let rowHeight = 22.0
        var frame = Frame(height: Double(items.count) * rowHeight + 30)
        frame.left = 150
        frame.right = 70
        frame.top = 10
        let maxValue = Double(items.map(\.1).max() ?? 1)
        var parts = [open(id: id, height: frame.height, title: title)]
        parts.append("<g class=\"bars horizontal\">")
        for (i, item) in items.enumerated() {
            let y = frame.top + Double(i) * rowHeight
            let w = maxValue > 0 ? Double(item.1) / maxValue * frame.plotWidth : 0
            parts.append(text(item.0, x: frame.left - 8, y: y + 15, anchor: "end", fill: ReportPalette.line))
            parts.append("<rect x=\"\(coordinate(frame.left))\" y=\"\(coordinate(y + 3))\" width=\"\(coordinate(Swift.max(w, 1)))\" height=\"\(coordinate(rowHeight - 6))\" fill=\"\(ReportPalette.pm10)\"/>")
            parts.append(text(ReportFormat.count(item.1), x: frame.left + w + 6, y: y + 15, fill: ReportPalette.line))
        }
        parts.append("</g>")
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }
}
