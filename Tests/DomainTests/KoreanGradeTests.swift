import Domain
import PropertyBased
import Testing

@Suite("Korean PM grades")
struct KoreanGradeTests {
    let before = LocalDate(year: 2018, month: 3, day: 26)!
    let after = LocalDate(year: 2018, month: 3, day: 27)!

    @Test("PM2.5 40 µg/m³ is 보통 on 2018-03-26 and 나쁨 on 2018-03-27")
    func tableSwitch() throws {
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 40, on: before) == .moderate)
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 40, on: after) == .bad)
        // By slot: the `2018-03-26 24:00` hour starts on the 26th, so the old bands apply.
        let lastOld = try #require(HourSlot(airKoreaLabel: "2018-03-26 24:00"))
        let firstNew = try #require(HourSlot(airKoreaLabel: "2018-03-27 01:00"))
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 40, at: lastOld) == .moderate)
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 40, at: firstNew) == .bad)
        #expect(KoreanGrading.table(for: .pm25, on: before) == KoreanGrading.pm25Before2018)
        #expect(KoreanGrading.table(for: .pm25, on: after) == KoreanGrading.pm25Since2018)
        // PM10 bands did not change.
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: 81, on: before) == .bad)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: 81, on: after) == .bad)
    }

    @Test("band edges", arguments: [
        (DustKind.pm10, 30.0, AirKoreaGrade.good), (.pm10, 31, .moderate), (.pm10, 80, .moderate), (.pm10, 81, .bad),
        (.pm10, 150, .bad), (.pm10, 151, .veryBad), (.pm10, 0, .good), (.pm10, 999, .veryBad),
        (.pm25, 15, .good), (.pm25, 16, .moderate), (.pm25, 35, .moderate), (.pm25, 36, .bad),
        (.pm25, 75, .bad), (.pm25, 76, .veryBad),
    ])
    func edgesSince2018(kind: DustKind, value: Double, grade: AirKoreaGrade) {
        #expect(KoreanGrading.grade(kind, microgramsPerCubicMetre: value, on: after) == grade)
    }

    @Test("PM2.5 band edges before 2018-03-27", arguments: [
        (15.0, AirKoreaGrade.good), (16, .moderate), (50, .moderate), (51, .bad), (100, .bad), (101, .veryBad),
    ])
    func edgesBefore2018(value: Double, grade: AirKoreaGrade) {
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: value, on: before) == grade)
    }

    @Test("non-integer values are truncated to whole µg/m³; invalid values are not graded")
    func truncation() {
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 15.9, on: after) == .good)
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 35.99, on: after) == .moderate)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: 150.999, on: after) == .bad)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: 1e300, on: after) == .veryBad)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: -1, on: after) == nil)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: .nan, on: after) == nil)
        // 1-hour values are graded on the same bands (the caller picks which value to grade).
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 40, on: after) == .bad)
    }

    @Test("truncation allows for binary rounding, as the CAI and AQI tables do")
    func binaryRounding() {
        let sum = 10.1 + 10.2 + 10.7 // 30.999999999999996 in binary
        #expect(sum < 31)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: sum, on: after) == .moderate)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: 31, on: after) == .moderate)
        #expect(KoreanCAI.grade(KoreanCAI.subIndex(.pm10, sum)!) == .moderate)
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 16.0.nextDown, on: after) == .moderate)
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 36.0.nextDown, on: after) == .bad)
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 76.0.nextDown, on: after) == .veryBad)
        #expect(KoreanGrading.grade(.pm10, microgramsPerCubicMetre: 151.0.nextDown, on: after) == .veryBad)
        // Published values with a real fractional part are still truncated.
        #expect(KoreanGrading.grade(.pm25, microgramsPerCubicMetre: 15.999, on: after) == .good)
    }

    /// Since 2018-03-27 the Korean bands and the CAI's PM bands share their edges, so a
    /// concentration and its CAI sub-index always fall in the same grade. The concentrations
    /// are sums of three one-decimal readings that add up, in decimal, to a band's lowest value
    /// or to a whole number near it, as a sum or mean of published values does; many land a
    /// few ULPs below that number in binary.
    @Test("at every band edge, the Korean grade of a concentration equals the grade of its CAI sub-index")
    func agreesWithCAI() {
        let input = zip(Gen<DustKind>.case, Gen.int(in: 0...2), Gen.int(in: -1...1), Gen.int(in: 0...1_000), Gen.int(in: 0...1_000))
        seededPropertyCheck(count: 2_000, input: input) { kind, band, offset, a, b in
            let table = KoreanGrading.table(for: kind, on: after)
            let whole = [table.goodMax, table.moderateMax, table.badMax][band] + 1 + offset
            let tenths = whole * 10, first = min(a, tenths), second = min(b, tenths - first)
            let c = Double(first) / 10 + Double(second) / 10 + Double(tenths - first - second) / 10
            let grade = KoreanGrading.grade(kind, microgramsPerCubicMetre: c, on: after)
            #expect(grade == KoreanGrading.grade(kind, microgramsPerCubicMetre: Double(whole), on: after), "\(c)")
            #expect(grade == KoreanCAI.grade(KoreanCAI.subIndex(kind.pollutant, c)!), "\(c)")
        }
    }

    @Test("grades are monotone in concentration, on any date")
    func monotone() {
        let input = zip(Gen.double(in: 0...400), Gen.double(in: 0...400), Gen.int(in: 15_000...21_000), Gen<DustKind>.case)
        seededPropertyCheck(count: 1_000, input: input) { a, b, day, kind in
            let date = LocalDate(daysSinceEpoch: day)
            let low = KoreanGrading.grade(kind, microgramsPerCubicMetre: min(a, b), on: date)!
            let high = KoreanGrading.grade(kind, microgramsPerCubicMetre: max(a, b), on: date)!
            #expect(low <= high)
        }
    }

    @Test("exactly one table per fraction is in force on any date")
    func oneTablePerDate() {
        seededPropertyCheck(input: Gen.int(in: 10_000...25_000)) { day in
            let date = LocalDate(daysSinceEpoch: day)
            for kind in DustKind.allCases {
                #expect(KoreanGrading.tables.count { $0.kind == kind && $0.isInForce(on: date) } == 1)
            }
        }
    }

    @Test("legacy intake grade: the app's bands, edges 49/50 … 199/200, negative → none")
    func legacyIntakeGrade() {
        #expect(LegacyIntakeGrade(micrograms: 40) == .veryGood)
        #expect(LegacyIntakeGrade(micrograms: 49) == .veryGood)
        #expect(LegacyIntakeGrade(micrograms: 50) == .good)
        #expect(LegacyIntakeGrade(micrograms: 90) == .good)
        #expect(LegacyIntakeGrade(micrograms: 140) == .normal)
        #expect(LegacyIntakeGrade(micrograms: 190) == .bad)
        #expect(LegacyIntakeGrade(micrograms: 199) == .bad)
        #expect(LegacyIntakeGrade(micrograms: 200) == .veryBad)
        #expect(LegacyIntakeGrade(micrograms: 240) == .veryBad)
        #expect(LegacyIntakeGrade(micrograms: -1) == nil)
    }
}
