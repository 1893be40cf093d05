import Foundation

/// The result of a piecewise-linear air-quality index (Korean CAI, US EPA AQI) for one value.
public enum IndexResult: Hashable, Sendable, Codable, Comparable {
    /// The index, a whole number on the table's scale (0…500 for both CAI and AQI).
    case index(Int)
    /// The truncated concentration lies above the table's top breakpoint. Not extrapolated.
    case beyondScale

    /// The index, or nil when beyond the scale.
    public var value: Int? {
        if case .index(let v) = self { return v }
        return nil
    }

    /// Orders indices numerically, with `beyondScale` above every index.
    public static func < (a: IndexResult, b: IndexResult) -> Bool {
        switch (a, b) {
        case let (.index(x), .index(y)): x < y
        case (.index, .beyondScale): true
        case (.beyondScale, _): false
        }
    }
}

/// One row of a breakpoint table. Concentrations are whole counts of the table's truncation
/// unit (e.g. tenths of µg/m³ for EPA PM2.5), both ends inclusive.
public struct BreakpointRow: Hashable, Sendable {
    /// The row's lowest concentration, in truncation units.
    public let concentrationLow: Int
    /// The row's highest concentration, in truncation units.
    public let concentrationHigh: Int
    /// The index at `concentrationLow`.
    public let indexLow: Int
    /// The index at `concentrationHigh`.
    public let indexHigh: Int

    public init(concentrationLow: Int, concentrationHigh: Int, indexLow: Int, indexHigh: Int) {
        self.concentrationLow = concentrationLow
        self.concentrationHigh = concentrationHigh
        self.indexLow = indexLow
        self.indexHigh = indexHigh
    }
}

/// A piecewise-linear index table, `Ip = (IHi − ILo)/(BPHi − BPLo) × (Cp − BPLo) + ILo`, with
/// the period it was in force.
///
/// The concentration is first truncated (toward zero) to a whole number of the table's unit
/// (`1 / unitsPerWhole` of the pollutant's unit) by `TableTruncation`, which also sets the rule
/// for NaN, infinite and negative input. The formula is then evaluated exactly in integers and
/// rounded to the nearest whole index, halves upward, so no binary floating-point error can
/// move a result across a rounding edge. Concentrations above the top row, +∞ included, give
/// `.beyondScale`.
public struct BreakpointTable: Hashable, Sendable {
    /// A short name for messages and diagnostics, e.g. `EPA AQI PM2.5 (2024)`.
    public let name: String
    /// The pollutant whose concentrations the table reads.
    public let pollutant: Pollutant
    /// Truncation units per whole unit of concentration: 1 (whole µg/m³), 10 (0.1 µg/m³),
    /// 100 (0.01 ppm) or 1000 (0.001 ppm).
    public let unitsPerWhole: Int
    /// The rows, ascending and contiguous (each row starts one unit above the previous end).
    public let rows: [BreakpointRow]
    /// The first date (KST) the table applies to; nil when it applies to all earlier dates.
    public let effectiveFrom: LocalDate?
    /// The first date (KST) the table no longer applies to; nil when still in force.
    public let effectiveUntil: LocalDate?

    /// Builds a table from rows written in the pollutant's unit, as the sources print them:
    /// `(concentration low, concentration high, index low, index high)`.
    public init(name: String, pollutant: Pollutant, unitsPerWhole: Int,
                rows: [(Double, Double, Int, Int)],
                effectiveFrom: LocalDate? = nil, effectiveUntil: LocalDate? = nil) {
        self.name = name
        self.pollutant = pollutant
        self.unitsPerWhole = unitsPerWhole
        self.rows = rows.map { row in
            BreakpointRow(concentrationLow: Int((row.0 * Double(unitsPerWhole)).rounded()),
                          concentrationHigh: Int((row.1 * Double(unitsPerWhole)).rounded()),
                          indexLow: row.2, indexHigh: row.3)
        }
        self.effectiveFrom = effectiveFrom
        self.effectiveUntil = effectiveUntil
    }

    /// True when the table applies to `date`.
    public func isInForce(on date: LocalDate) -> Bool {
        if let effectiveFrom, date < effectiveFrom { return false }
        if let effectiveUntil, date >= effectiveUntil { return false }
        return true
    }

    /// The top breakpoint, in the pollutant's unit.
    public var topConcentration: Double { Double(rows.last!.concentrationHigh) / Double(unitsPerWhole) }

    /// The size of one truncation unit, in the pollutant's unit (e.g. 0.1).
    public var truncationStep: Double { 1 / Double(unitsPerWhole) }

    /// `concentration` truncated to whole truncation units (`TableTruncation`); nil for NaN and
    /// negative values, and nil above the top breakpoint, +∞ included (see `index(_:)`).
    ///
    /// The truncation allowance absorbs binary representation error, so `0.031` ppm is 31
    /// thousandths rather than 30.
    public func truncatedUnits(_ concentration: Double) -> Int? {
        guard case .units(let units) = truncate(concentration) else { return nil }
        return units
    }

    /// The index for `concentration` (in the pollutant's unit): nil when negative or not a
    /// number, `.beyondScale` above the top breakpoint (+∞ included), `.index` otherwise.
    public func index(_ concentration: Double) -> IndexResult? {
        switch truncate(concentration) {
        case nil: nil
        case .atOrAboveCap: .beyondScale
        case .units(let units): index(units: units)
        }
    }

    /// `concentration` under `TableTruncation`, capped one unit above the top breakpoint.
    private func truncate(_ concentration: Double) -> TruncatedValue? {
        TableTruncation.truncate(concentration, unitsPerWhole: unitsPerWhole, cap: rows.last!.concentrationHigh + 1)
    }

    /// The index for a concentration already expressed in whole truncation units: nil when
    /// negative, `.beyondScale` above the top breakpoint.
    public func index(units: Int) -> IndexResult? {
        guard units >= 0 else { return nil }
        guard let row = rows.first(where: { units <= $0.concentrationHigh }) else { return .beyondScale }
        let width = row.concentrationHigh - row.concentrationLow
        guard width > 0 else { return .index(row.indexLow) }
        let numerator = (row.indexHigh - row.indexLow) * (units - row.concentrationLow)
        // Round numerator / width to the nearest integer, halves up (numerator ≥ 0).
        return .index(row.indexLow + (2 * numerator + width) / (2 * width))
    }
}
