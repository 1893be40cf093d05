import Domain
import PropertyBased
import Testing

extension BreakpointTable: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// Every breakpoint table in the module.
let allBreakpointTables: [BreakpointTable] =
    Pollutant.allCases.map(KoreanCAI.table(for:)) + EPAAQI.tables

@Suite("Breakpoint tables (CAI and AQI)")
struct BreakpointTableTests {
    @Test("rows start at 0, are contiguous in truncation units, and rise in index", arguments: allBreakpointTables)
    func contiguous(table: BreakpointTable) {
        #expect(table.rows.first?.concentrationLow == 0)
        #expect(table.rows.first?.indexLow == 0)
        #expect(table.rows.last?.indexHigh == 500)
        for (a, b) in zip(table.rows, table.rows.dropFirst()) {
            #expect(b.concentrationLow == a.concentrationHigh + 1, "\(table.name)")
            #expect(b.indexLow == a.indexHigh + 1, "\(table.name)")
        }
        for row in table.rows {
            #expect(row.concentrationLow < row.concentrationHigh && row.indexLow < row.indexHigh, "\(table.name)")
        }
    }

    @Test("exact at every breakpoint", arguments: allBreakpointTables)
    func exactAtBreakpoints(table: BreakpointTable) {
        let step = Double(1) / Double(table.unitsPerWhole)
        for row in table.rows {
            #expect(table.index(Double(row.concentrationLow) * step) == .index(row.indexLow), "\(table.name)")
            #expect(table.index(Double(row.concentrationHigh) * step) == .index(row.indexHigh), "\(table.name)")
        }
        #expect(table.index(table.topConcentration) == .index(500))
        #expect(table.index(table.topConcentration + step) == .beyondScale)
        #expect(table.index(.infinity) == .beyondScale)
        #expect(table.index(1e300) == .beyondScale)
        #expect(table.index(-step) == nil)
        #expect(table.index(.nan) == nil)
    }

    /// Exhaustive over every truncation unit up to the top: never decreasing, never jumping by
    /// more than one unit's worth of the steepest row plus one for rounding (so no jump at a
    /// breakpoint), and within ½ of the unrounded formula (rounded to nearest).
    @Test("monotone, without jumps across breakpoints, and rounded to nearest", arguments: allBreakpointTables)
    func monotoneAndContinuous(table: BreakpointTable) {
        let steepest = table.rows.map { Double($0.indexHigh - $0.indexLow) / Double($0.concentrationHigh - $0.concentrationLow) }.max()!
        let maxJump = Int(steepest.rounded(.up)) + 1
        var previous = table.index(units: 0)!.value!
        var failures = 0
        for units in 0...table.rows.last!.concentrationHigh {
            guard let value = table.index(units: units)?.value else { failures += 1; continue }
            if value < previous || value - previous > maxJump { failures += 1 }
            let row = table.rows.first { units <= $0.concentrationHigh }!
            let exact = Double(row.indexHigh - row.indexLow) / Double(row.concentrationHigh - row.concentrationLow)
                * Double(units - row.concentrationLow) + Double(row.indexLow)
            if abs(Double(value) - exact) > 0.5 + 1e-9 { failures += 1 }
            previous = value
        }
        #expect(failures == 0, "\(table.name)")
        #expect(table.index(units: table.rows.last!.concentrationHigh + 1) == .beyondScale)
        #expect(table.index(units: -1) == nil)
    }

    @Test("monotone in the concentration as a Double, with beyondScale above every index")
    func monotoneDouble() {
        let input = zip(Gen.int(in: 0...(allBreakpointTables.count - 1)), Gen.double(in: 0...1.2), Gen.double(in: 0...1.2))
        seededPropertyCheck(count: 2_000, input: input) { t, a, b in
            let table = allBreakpointTables[t]
            let low = table.index(min(a, b) * table.topConcentration)!
            let high = table.index(max(a, b) * table.topConcentration)!
            #expect(low <= high, "\(table.name)")
        }
    }

    @Test("truncation tolerates binary representation: 0.031 ppm is 31 thousandths")
    func truncationTolerance() {
        #expect(KoreanCAI.o3.truncatedUnits(0.031) == 31)
        #expect(KoreanCAI.co.truncatedUnits(2.01) == 201)
        #expect(EPAAQI.pm25Since2024.truncatedUnits(35.49) == 354)
        #expect(EPAAQI.pm25Since2024.truncatedUnits(0.3) == 3)
        #expect(EPAAQI.pm10Since2024.truncatedUnits(54.9) == 54)
    }
}
