import Foundation

/// The units a report prints, each with one fixed number of decimals, so the same quantity reads
/// the same way in the cards, tables, chart labels and tooltips.
enum ReportUnit: Sendable {
    /// A concentration, µg/m³: one decimal (`46.3`).
    case concentration
    /// An inhaled mass, µg: whole micrograms with grouped thousands (`46,080`).
    case micrograms
    /// A share, %: one decimal (`71.4%`).
    case percent
    /// An inhalation rate, m³/h: two decimals (`1.56`).
    case cubicMetresPerHour
    /// A walking speed, km/h: one decimal (`5.0`).
    case kilometresPerHour
    /// A distance, m: whole metres with grouped thousands (`5,000`).
    case metres
    /// Hours of walking in an hour: two decimals (`0.40`).
    case walkingHours

    /// Decimals printed for this unit.
    var decimals: Int {
        switch self {
        case .concentration, .percent, .kilometresPerHour: 1
        case .cubicMetresPerHour, .walkingHours: 2
        case .micrograms, .metres: 0
        }
    }

    /// The symbol after the number (the percent sign is attached by `ReportFormat.percent`).
    var symbol: String {
        switch self {
        case .concentration: "µg/m³"
        case .micrograms: "µg"
        case .percent: "%"
        case .cubicMetresPerHour: "m³/h"
        case .kilometresPerHour: "km/h"
        case .metres: "m"
        case .walkingHours: "h"
        }
    }
}

/// Numbers as the report prints them: grouped thousands (`TerminalProgress.grouped`) and a fixed
/// number of decimals per unit. Not locale-dependent: the same model gives the same bytes.
enum ReportFormat {
    /// A count: `46,080`.
    static func count(_ n: Int) -> String { TerminalProgress.grouped(n) }

    /// `value` rounded to `decimals`, thousands grouped: `1,234.5`; `–` when not finite.
    static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "–" }
        let scale = pow(10, Double(decimals))
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 1e15 else { return "–" }
        let units = Int(scaled)
        let whole = units / Int(scale), fraction = units % Int(scale)
        var text = count(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return (value < 0 && units != 0 ? "-" : "") + text
    }

    /// A value in `unit`, without the symbol: `46.3`, `1,498`.
    static func value(_ value: Double, _ unit: ReportUnit) -> String {
        unit == .percent ? percent(value / 100) : number(value, decimals: unit.decimals)
    }

    /// A value with its unit: `46.3 µg/m³`, `1,498 µg`, `71.4%`.
    static func quantity(_ value: Double, _ unit: ReportUnit) -> String {
        unit == .percent ? percent(value / 100) : "\(number(value, decimals: unit.decimals)) \(unit.symbol)"
    }

    /// A fraction 0…1 as a percentage: `71.4%`.
    static func percent(_ fraction: Double) -> String {
        "\(number(fraction * 100, decimals: ReportUnit.percent.decimals))%"
    }

    /// `part` of `whole` as a percentage; `–` when `whole` is 0.
    static func percent(_ part: Int, of whole: Int) -> String {
        whole == 0 ? "–" : percent(Double(part) / Double(whole))
    }

    /// An axis tick: as many decimals as the step needs (0 for whole steps, else 1), grouped.
    static func tick(_ value: Double, step: Double) -> String {
        number(value, decimals: step == step.rounded() ? 0 : 1)
    }
}
