import Domain
import PropertyBased
import Testing

@Suite("Intake models")
struct IntakeModelTests {
    let model = InhalationIntakeModel()

    // MARK: - Honest model

    @Test("defaults: EFH 2011 Table 6-2 adults 21–<31, walking is moderate, 5 km/h")
    func defaults() {
        #expect(InhalationRates.efh2011Adults21To31 == InhalationRates(sedentary: 0.25, light: 0.72, moderate: 1.56, high: 3.0))
        #expect(model.walkingActivity == .moderate)
        #expect(model.walkingSpeed == 5)
        #expect(model.walkingRate == 1.56)
        #expect(ActivityLevel.allCases.map(model.rates.rate(for:)) == [0.25, 0.72, 1.56, 3.0])
    }

    @Test("DOMAIN.md §6.6 worked example: 35 µg/m³, 2 km at 5 km/h, 1.56 m³/h → 21.84 µg")
    func workedExample() throws {
        #expect(model.walkingHours(distanceMetres: 2_000) == 0.4)
        let inhaled = try #require(model.intakeMicrograms(concentration: 35, distanceMetres: 2_000))
        #expect(abs(inhaled - 21.84) < 1e-9)
        // The app gave 25 µg for the same hour.
        #expect(LegacyIntake.appMicrograms(dust: 35, distanceMetres: 2_000) == 25)
    }

    @Test("walking time is capped at one hour; invalid inputs give no intake")
    func capAndInvalid() throws {
        #expect(model.walkingHours(distanceMetres: 10_000) == 1)
        let capped = try #require(model.intakeMicrograms(concentration: 35, distanceMetres: 10_000))
        #expect(abs(capped - 35 * 1.56) < 1e-9)
        #expect(model.intakeMicrograms(concentration: -1, distanceMetres: 1_000) == nil)
        #expect(model.intakeMicrograms(concentration: 10, distanceMetres: -1) == nil)
        #expect(model.intakeMicrograms(concentration: .nan, distanceMetres: 1_000) == nil)
        #expect(InhalationIntakeModel(walkingSpeed: 0).walkingHours(distanceMetres: 100) == nil)
    }

    @Test("the app's 0.00036 m³/m is IR = 1.8 m³/h at 5 km/h")
    func appConstantReading() throws {
        let appLike = InhalationIntakeModel(rates: InhalationRates(sedentary: 0.25, light: 0.72, moderate: 1.8, high: 3.0))
        let inhaled = try #require(appLike.intakeMicrograms(concentration: 100, distanceMetres: 5_000))
        let legacy = try #require(LegacyIntake.exactMicrograms(dust: 100, distanceMetres: 5_000))
        #expect(abs(inhaled - Double(legacy)) < 1e-9)
    }

    @Test("zero concentration inhales nothing")
    func zeroAtZero() {
        seededPropertyCheck(input: Gen.double(in: 0...20_000)) { distance in
            #expect(model.intakeMicrograms(concentration: 0, distanceMetres: distance) == 0)
        }
    }

    @Test("linear in concentration")
    func linearInConcentration() throws {
        try seededPropertyCheck(input: zip(Gen.double(in: 0...500), Gen.double(in: 0...20), Gen.double(in: 0...20_000))) { c, k, d in
            let base = try #require(model.intakeMicrograms(concentration: c, distanceMetres: d))
            let scaled = try #require(model.intakeMicrograms(concentration: k * c, distanceMetres: d))
            #expect(approximatelyEqual(scaled, k * base))
        }
    }

    @Test("additive when an hour is split: time split and distance split")
    func additive() throws {
        try seededPropertyCheck(input: zip(Gen.double(in: 0...500), Gen.double(in: 0...3), Gen.double(in: 0...1), Gen.double(in: 0...1))) { c, r, f, g in
            // Time split: t = t1 + t2.
            let t1 = f / 2, t2 = g / 2
            let whole = inhaledMicrograms(concentration: c, rate: r, hours: t1 + t2)
            let parts = inhaledMicrograms(concentration: c, rate: r, hours: t1) + inhaledMicrograms(concentration: c, rate: r, hours: t2)
            #expect(approximatelyEqual(whole, parts))
            // Distance split within the hour (total ≤ 5 km at 5 km/h).
            let d1 = f * 2_500, d2 = g * 2_500
            let wholeDistance = try #require(model.intakeMicrograms(concentration: c, distanceMetres: d1 + d2))
            let partDistances = try #require(model.intakeMicrograms(concentration: c, distanceMetres: d1))
                + (try #require(model.intakeMicrograms(concentration: c, distanceMetres: d2)))
            #expect(approximatelyEqual(wholeDistance, partDistances))
        }
    }

    @Test("monotone in distance")
    func monotoneInDistance() throws {
        try seededPropertyCheck(input: zip(Gen.double(in: 0...500), Gen.double(in: 0...20_000), Gen.double(in: 0...20_000))) { c, a, b in
            let near = try #require(model.intakeMicrograms(concentration: c, distanceMetres: min(a, b)))
            let far = try #require(model.intakeMicrograms(concentration: c, distanceMetres: max(a, b)))
            #expect(near <= far)
        }
    }

    @Test("monotone in inhalation rate and in activity level")
    func monotoneInRate() throws {
        try seededPropertyCheck(input: zip(Gen.double(in: 0...500), Gen.double(in: 0...5), Gen.double(in: 0...5), Gen.double(in: 0...20_000))) { c, r1, r2, d in
            let slow = InhalationIntakeModel(rates: InhalationRates(sedentary: 0, light: 0, moderate: min(r1, r2), high: 0))
            let fast = InhalationIntakeModel(rates: InhalationRates(sedentary: 0, light: 0, moderate: max(r1, r2), high: 0))
            let low = try #require(slow.intakeMicrograms(concentration: c, distanceMetres: d))
            let high = try #require(fast.intakeMicrograms(concentration: c, distanceMetres: d))
            #expect(low <= high)
            let byLevel = ActivityLevel.allCases.map {
                InhalationIntakeModel(walkingActivity: $0).intakeMicrograms(concentration: c, distanceMetres: d)!
            }
            #expect(byLevel == byLevel.sorted())
        }
    }

    // MARK: - Legacy

    @Test("legacy formula: exact integer vs the app's float truncation (DOMAIN.md §2.1)", arguments: [
        (50, 1_000, 18, 17), (100, 500, 18, 17), (25, 1_000, 9, 8), (20, 5_000, 36, 35), (35, 2_000, 25, 25), (30, 600, 6, 6),
    ])
    func legacyExamples(dust: Int, distance: Int, exact: Int, app: Int) {
        #expect(LegacyIntake.exactMicrograms(dust: dust, distanceMetres: distance) == exact)
        #expect(LegacyIntake.appMicrograms(dust: dust, distanceMetres: distance) == app)
    }

    @Test("the float trap on the grid PM 0–300 × distance 0–20 000 m step 50: exactly 634 cases, each one below")
    func floatTrapGrid() {
        var traps = 0, trapsWithIndoorRule = 0, otherDifferences = 0
        for dust in 0...300 {
            for distance in stride(from: 0, through: 20_000, by: 50) {
                let exact = LegacyIntake.exactMicrograms(dust: dust, distanceMetres: distance)!
                let app = LegacyIntake.appMicrograms(dust: dust, distanceMetres: distance)!
                if app == exact - 1 { traps += 1 } else if app != exact { otherDifferences += 1 }
                if LegacyIntake.hourlyMicrograms(dust: dust, distanceMetres: distance, arithmetic: .appFloatingPoint)
                    != LegacyIntake.hourlyMicrograms(dust: dust, distanceMetres: distance, arithmetic: .exactInteger) {
                    trapsWithIndoorRule += 1
                }
            }
        }
        #expect(traps == 634)
        #expect(otherDifferences == 0)
        // The indoor rule zeroes distances below 500 m, removing the 7 traps there.
        #expect(trapsWithIndoorRule == 627)
    }

    @Test("legacy formulas: a negative input gives no amount, not one rounded toward zero")
    func legacyNegative() {
        #expect(LegacyIntake.exactMicrograms(dust: -50, distanceMetres: 1_000) == nil)
        #expect(LegacyIntake.appMicrograms(dust: -50, distanceMetres: 1_000) == nil)
        #expect(LegacyIntake.exactMicrograms(dust: 50, distanceMetres: -1_000) == nil)
        #expect(LegacyIntake.appMicrograms(dust: 50, distanceMetres: -1_000) == nil)
        for arithmetic in LegacyArithmetic.allCases {
            #expect(LegacyIntake.hourlyMicrograms(dust: -50, distanceMetres: 1_000, arithmetic: arithmetic) == nil)
            // Without the guard the indoor rule turned a negative distance into 0 µg.
            #expect(LegacyIntake.hourlyMicrograms(dust: 50, distanceMetres: -1_000, arithmetic: arithmetic) == nil)
        }
        #expect(LegacyIntake.outdoorDistance(metres: -1) == nil)
    }

    @Test("legacy formulas: a product too large for Int gives no amount instead of trapping")
    func legacyOverflow() {
        #expect(LegacyIntake.exactMicrograms(dust: Int.max / 2, distanceMetres: 3) == nil)
        #expect(LegacyIntake.appMicrograms(dust: Int.max / 2, distanceMetres: 3) == nil)
        #expect(LegacyIntake.exactMicrograms(dust: 1 << 31, distanceMetres: 1 << 31) == nil) // d·x fits, ·36 does not
        for arithmetic in LegacyArithmetic.allCases {
            #expect(LegacyIntake.hourlyMicrograms(dust: Int.max, distanceMetres: Int.max, arithmetic: arithmetic) == nil)
        }
    }

    @Test("legacy formulas: defined on the whole accepted range, nil just outside it")
    func legacyRangeEdges() {
        let maxDust = LegacyIntake.validDust.upperBound - 1, maxDistance = LegacyIntake.validDistanceMetres.upperBound - 1
        #expect(LegacyIntake.exactMicrograms(dust: maxDust, distanceMetres: maxDistance) == maxDust * maxDistance * 36 / 100_000)
        #expect(LegacyIntake.appMicrograms(dust: maxDust, distanceMetres: maxDistance) != nil)
        #expect(LegacyIntake.exactMicrograms(dust: maxDust + 1, distanceMetres: 1_000) == nil)
        #expect(LegacyIntake.exactMicrograms(dust: 50, distanceMetres: maxDistance + 1) == nil)
        #expect(LegacyIntake.outdoorDistance(metres: maxDistance + 1) == nil)
        #expect(LegacyIntake.exactMicrograms(dust: 0, distanceMetres: 0) == 0)
        #expect(LegacyIntakeModel().intakeMicrograms(concentration: Double(maxDust) + 0.9, distanceMetres: 1_000) != nil)
        #expect(LegacyIntakeModel().intakeMicrograms(concentration: Double(maxDust + 1), distanceMetres: 1_000) == nil)
    }

    @Test("legacy formulas: the app's float result is the exact one or one below, on every accepted input")
    func legacyProperty() throws {
        let input = zip(Gen.int(in: LegacyIntake.validDust), Gen.int(in: LegacyIntake.validDistanceMetres),
                        Gen.int(in: -1_000_000...(-1)), Gen<LegacyArithmetic>.case)
        try seededPropertyCheck(count: 2_000, input: input) { dust, distance, negative, arithmetic in
            let exact = try #require(LegacyIntake.exactMicrograms(dust: dust, distanceMetres: distance))
            let app = try #require(LegacyIntake.appMicrograms(dust: dust, distanceMetres: distance))
            #expect(app == exact || app == exact - 1)
            let model = LegacyIntakeModel(arithmetic: arithmetic)
            #expect(model.intakeMicrograms(concentration: Double(dust), distanceMetres: Double(distance))
                    == LegacyIntake.hourlyMicrograms(dust: dust, distanceMetres: distance, arithmetic: arithmetic).map(Double.init))
            #expect(LegacyIntake.hourlyMicrograms(dust: negative, distanceMetres: distance, arithmetic: arithmetic) == nil)
            #expect(LegacyIntake.hourlyMicrograms(dust: dust, distanceMetres: negative, arithmetic: arithmetic) == nil)
        }
    }

    @Test("the 500 m indoor rule: below 500 m an hour counts as 0 m")
    func indoorRule() {
        #expect(LegacyIntake.outdoorDistance(metres: 499) == 0)
        #expect(LegacyIntake.outdoorDistance(metres: 500) == 500)
        #expect(LegacyIntake.hourlyMicrograms(dust: 300, distanceMetres: 499, arithmetic: .exactInteger) == 0)
        #expect(LegacyIntake.hourlyMicrograms(dust: 100, distanceMetres: 500, arithmetic: .exactInteger) == 18)
        #expect(LegacyIntake.hourlyMicrograms(dust: 100, distanceMetres: 500, arithmetic: .appFloatingPoint) == 17)
        let legacy = LegacyIntakeModel()
        #expect(legacy.intakeMicrograms(concentration: 300, distanceMetres: 499.9) == 0)
        #expect(legacy.intakeMicrograms(concentration: 50.7, distanceMetres: 1_000.9) == 18) // inputs truncated like the app
        #expect(LegacyIntakeModel(arithmetic: .appFloatingPoint).intakeMicrograms(concentration: 50, distanceMetres: 1_000) == 17)
        #expect(legacy.intakeIsZeroAtAnyConcentration(distanceMetres: 499))
        #expect(!legacy.intakeIsZeroAtAnyConcentration(distanceMetres: 500))
        #expect(legacy.intakeMicrograms(concentration: -1, distanceMetres: 1_000) == nil)
    }
}
