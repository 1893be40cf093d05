import Domain
import Foundation
import PropertyBased
import Testing

/// A grading or index scale in the module, reduced to "which class does this value fall in".
struct Scale: Sendable, CustomTestStringConvertible {
    let name: String
    /// The highest value below the top class.
    let belowTopClass: Double
    /// The lowest value in the top class (every larger value, +∞ included, is in it too).
    let topClassFrom: Double
    /// The value's class, spelled out; nil when the value has none.
    let classify: @Sendable (Double) -> String?

    var testDescription: String { name }
}

/// Every scale: the CAI and AQI breakpoint tables, the Korean grade tables, the CAI grade of a
/// published CAI, and the WHO 2021 levels.
let allScales: [Scale] =
    allBreakpointTables.map { table in
        Scale(name: table.name, belowTopClass: table.topConcentration,
              topClassFrom: table.topConcentration + table.truncationStep,
              classify: { table.index($0).map { "\($0)" } })
    }
    + KoreanGrading.tables.map { table in
        Scale(name: "Korean \(table.kind) grade from \(table.effectiveFrom.map { "\($0)" } ?? "the start")",
              belowTopClass: Double(table.badMax) + 0.999, topClassFrom: Double(table.badMax + 1),
              classify: { table.grade(microgramsPerCubicMetre: $0).map { "\($0)" } })
    }
    + [Scale(name: "CAI grade of a published CAI", belowTopClass: 250.999, topClassFrom: 251,
             classify: { KoreanCAI.grade(khai: $0).map { "\($0)" } })]
    + DustKind.allCases.flatMap { kind in
        WHOAveragingPeriod.allCases.map { period in
            let loosest = WHOGuideline2021.limit(kind, period, .interimTarget1)
            return Scale(name: "WHO 2021 \(kind) \(period)", belowTopClass: loosest, topClassFrom: loosest.nextUp,
                         classify: { WHOGuideline2021.assess(kind, period, microgramsPerCubicMetre: $0).map { "\($0.exceededLevels)" } })
        }
    }

/// The rule for values outside a scale's finite, non-negative domain, checked on every
/// calculation: NaN, −∞ and negative values give no result; +∞ lies above every breakpoint, so a
/// scale puts it in its top class, while an amount (intake, µg) has no value for it.
@Suite("Input rule: NaN, infinities, negatives and values above the top breakpoint")
struct InputRuleTests {
    @Test("NaN, −∞ and negative values have no class", arguments: allScales)
    func noClass(scale: Scale) {
        for value: Double in [.nan, -Double.infinity, -1, -Double.leastNonzeroMagnitude, -Double.greatestFiniteMagnitude] {
            #expect(scale.classify(value) == nil, "\(value)")
        }
        #expect(scale.classify(0) != nil)
    }

    @Test("+∞ is in the top class, which starts just above the top breakpoint", arguments: allScales)
    func infinityIsTop(scale: Scale) {
        let top = scale.classify(scale.topClassFrom)
        #expect(top != nil)
        #expect(scale.classify(.infinity) == top)
        #expect(scale.classify(.greatestFiniteMagnitude) == top)
        #expect(scale.classify(scale.belowTopClass) != top)
    }

    @Test("every value above the top breakpoint is in the top class, up to +∞")
    func aboveTopBreakpoint() {
        let input = zip(Gen.int(in: 0...(allScales.count - 1)), Gen.double(in: 0...1), Gen.int(in: -3...308))
        seededPropertyCheck(count: 3_000, input: input) { s, fraction, exponent in
            let scale = allScales[s]
            let value = scale.topClassFrom + fraction * pow(10, Double(exponent)) // may overflow to +∞
            #expect(scale.classify(value) == scale.classify(.infinity), "\(scale.name): \(value)")
        }
    }

    static let intakeModels: [any WalkingIntakeModel] =
        [InhalationIntakeModel(), LegacyIntakeModel(), LegacyIntakeModel(arithmetic: .appFloatingPoint)]

    @Test("intake: NaN, ±∞ or a negative input gives no amount")
    func intakeInvalid() {
        for model in Self.intakeModels {
            for bad: Double in [.nan, .infinity, -Double.infinity, -1] {
                #expect(model.intakeMicrograms(concentration: bad, distanceMetres: 1_000) == nil, "\(model) \(bad)")
                #expect(model.intakeMicrograms(concentration: 35, distanceMetres: bad) == nil, "\(model) \(bad)")
            }
        }
        #expect(InhalationIntakeModel().walkingHours(distanceMetres: .infinity) == nil)
    }

    @Test("intake: every finite, non-negative input gives a finite amount or none, never +∞")
    func intakeFinite() {
        let input = zip(Gen.double(in: 0...1), Gen.int(in: -3...308), Gen.double(in: 0...1), Gen.int(in: -3...308), Gen.int(in: 0...2))
        seededPropertyCheck(count: 3_000, input: input) { c, ce, d, de, m in
            let concentration = c * pow(10, Double(ce)), distance = d * pow(10, Double(de))
            guard concentration.isFinite, distance.isFinite else { return }
            let intake = Self.intakeModels[m].intakeMicrograms(concentration: concentration, distanceMetres: distance)
            #expect(intake.map { $0.isFinite && $0 >= 0 } ?? true, "\(concentration) µg/m³, \(distance) m")
        }
        #expect(InhalationIntakeModel().intakeMicrograms(concentration: .greatestFiniteMagnitude, distanceMetres: 5_000) == nil)
    }
}
