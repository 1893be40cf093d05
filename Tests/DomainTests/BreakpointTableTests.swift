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

    /// Halves round up: the CAI PM2.5 row 76–500 → 251–500 gives 249/424 × (288 − 76) + 251
    /// = 375.5 at 288 µg/m³, so 376.
    @Test("CAI PM2.5 half case: everything that truncates to 288 µg/m³ is 376 (375.5 rounded up)")
    func caiHalfCase() {
        #expect(KoreanCAI.subIndex(.pm25, 288) == .index(376))
        #expect(KoreanCAI.subIndex(.pm25, 288.0.nextDown) == .index(376)) // within the allowance
        #expect(KoreanCAI.subIndex(.pm25, 10.1 + 10.2 + 267.7) == .index(376))
        #expect(KoreanCAI.subIndex(.pm25, 287.99) == .index(375))
        seededPropertyCheck(count: 1_000, input: Gen.double(in: 0..<1)) { fraction in
            #expect(KoreanCAI.subIndex(.pm25, 288 + fraction) == .index(376), "\(288 + fraction)")
        }
    }

    /// Exhaustive over every truncation unit: where the unrounded formula ends in exactly .5
    /// the index is rounded up, never to even or down.
    @Test("halves round up in every table", arguments: allBreakpointTables)
    func halvesRoundUp(table: BreakpointTable) {
        var halves = 0
        for units in 0...table.rows.last!.concentrationHigh {
            let row = table.rows.first { units <= $0.concentrationHigh }!
            let numerator = (row.indexHigh - row.indexLow) * (units - row.concentrationLow)
            let width = row.concentrationHigh - row.concentrationLow
            guard (2 * numerator) % width == 0, (2 * numerator / width) % 2 == 1 else { continue }
            halves += 1
            #expect(table.index(units: units) == .index(row.indexLow + numerator / width + 1), "\(table.name) \(units)")
        }
        if table == KoreanCAI.pm25 { #expect(halves > 0) }
    }

    @Test("the shared truncation rule: allowance, invalid input and the cap")
    func sharedTruncation() {
        #expect(TableTruncation.allowance == 1e-6)
        #expect(TableTruncation.truncate(0.031, unitsPerWhole: 1000, cap: 601) == .units(31))
        #expect(TableTruncation.truncate(10.1 + 10.2 + 10.7, cap: 151) == .units(31))
        #expect(TableTruncation.truncate(16.0.nextDown, cap: 76) == .units(16))
        #expect(TableTruncation.truncate(16 - 2e-6, cap: 76) == .units(15)) // beyond the allowance
        #expect(TableTruncation.truncate(15.999, cap: 76) == .units(15))
        #expect(TableTruncation.truncate(0, cap: 76) == .units(0))
        #expect(TableTruncation.truncate(-0.0, cap: 76) == .units(0))
        #expect(TableTruncation.truncate(76.0.nextDown, cap: 76) == .atOrAboveCap)
        #expect(TableTruncation.truncate(76, cap: 76) == .atOrAboveCap)
        #expect(TableTruncation.truncate(.greatestFiniteMagnitude, unitsPerWhole: 1000, cap: 601) == .atOrAboveCap)
        #expect(TableTruncation.truncate(.infinity, cap: 76) == .atOrAboveCap)
        #expect(TableTruncation.truncate(.nan, cap: 76) == nil)
        #expect(TableTruncation.truncate(-Double.infinity, cap: 76) == nil)
        #expect(TableTruncation.truncate(-1e-12, cap: 76) == nil)
    }

    /// A whole number of units, or one a few ULPs below it (binary error), truncates to that
    /// number; anything from 10⁻⁵ unit above it to 10⁻⁵ below the next truncates to it as well.
    @Test("truncation: a few ULPs below a whole unit is that unit; a real fraction is dropped")
    func truncationProperty() {
        let input = zip(Gen.int(in: 0...999_999), Gen.int(in: 0...64), Gen.double(in: 1e-5...(1 - 1e-5)),
                        Gen.int(in: 0...3))
        seededPropertyCheck(count: 3_000, input: input) { units, ulps, fraction, power in
            let unitsPerWhole = [1, 10, 100, 1000][power]
            var value = Double(units) / Double(unitsPerWhole)
            for _ in 0..<ulps { value = value.nextDown }
            #expect(TableTruncation.truncate(value, unitsPerWhole: unitsPerWhole, cap: 1_000_000) == .units(units),
                    "\(value) × \(unitsPerWhole)")
            let inside = (Double(units) + fraction) / Double(unitsPerWhole)
            #expect(TableTruncation.truncate(inside, unitsPerWhole: unitsPerWhole, cap: 1_000_000) == .units(units),
                    "\(inside) × \(unitsPerWhole)")
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
