import AirKorea
import Domain
import PropertyBased
import Testing

@Suite("Grade cross-check")
struct GradeCheckTests {
    let slot = HourSlot(date: LocalDate(year: 2024, month: 3, day: 6)!, hour: 10)!

    @Test("each supplied grade is compared with ours, from the right value")
    func crossCheck() throws {
        let m = HourlyMeasurement(
            stationName: "종로구", slot: slot, dataTime: "2024-03-06 11:00",
            pm: DustPair(pm10: 20, pm25: nil), pm24h: DustPair(pm10: 45, pm25: 40), khai: 120,
            grades: PollutantValues(pm10: .moderate, pm25: .moderate, o3: .good),
            grades1h: DustPair(pm10: .good, pm25: .good), khaiGrade: .bad)
        let checks = crossCheckGrades(m)
        #expect(checks.map(\.field) == [.pm10Grade, .pm25Grade, .pm10Grade1h, .pm25Grade1h, .khaiGrade])

        let byField = Dictionary(uniqueKeysWithValues: checks.map { ($0.field, $0) })
        // pm10Grade from pm10Value24 = 45 → 보통: agrees.
        #expect(byField[.pm10Grade] == GradeCheck(field: .pm10Grade, theirs: .moderate, ours: .moderate, basis: 45))
        #expect(byField[.pm10Grade]?.agrees == true)
        // pm25Grade from pm25Value24 = 40 → 나쁨 since 2018-03-27: AirKorea said 보통, a disagreement.
        #expect(byField[.pm25Grade]?.ours == .bad)
        #expect(byField[.pm25Grade]?.agrees == false)
        // pm10Grade1h from the hourly 20 → 좋음.
        #expect(byField[.pm10Grade1h]?.ours == .good)
        #expect(byField[.pm10Grade1h]?.agrees == true)
        // pm25Grade1h supplied, but no hourly PM2.5 value: not verifiable, not agreeing.
        let unverifiable = try #require(byField[.pm25Grade1h])
        #expect(unverifiable.ours == nil && !unverifiable.isVerifiable && !unverifiable.agrees)
        // khaiGrade from khai 120 → 나쁨.
        #expect(byField[.khaiGrade]?.ours == .bad)
        #expect(byField[.khaiGrade]?.agrees == true)
    }

    @Test("no grades supplied, nothing to check")
    func nothingSupplied() {
        let m = HourlyMeasurement(stationName: "A", slot: slot, dataTime: "2024-03-06 11:00",
                                  pm: DustPair(pm10: 20, pm25: 10), pm24h: DustPair(pm10: 20, pm25: 10), khai: 40)
        #expect(crossCheckGrades(m).isEmpty)
    }

    @Test("grades follow the bands in force on the measurement's date")
    func historicalBands() {
        let old = HourSlot(date: LocalDate(year: 2017, month: 6, day: 1)!, hour: 12)!
        let m = HourlyMeasurement(stationName: "A", slot: old, dataTime: "2017-06-01 13:00",
                                  pm24h: DustPair(pm10: nil, pm25: 40), grades: PollutantValues(pm25: .moderate))
        #expect(crossCheckGrades(m) == [GradeCheck(field: .pm25Grade, theirs: .moderate, ours: .moderate, basis: 40)])
    }
}

@Suite("Grade cross-check: with indices set")
struct GradeCheckIndicesTests {
    /// PM values across every band (and missing), published grades of every kind (and missing),
    /// dates on both sides of the 2018-03-27 PM2.5 change.
    @Test("using the grades in the measurement's indices gives the same checks as grading again")
    func indicesGiveTheSameChecks() {
        let value = zip(Gen.int(in: 0...4), Gen.double(in: 0...700)).map { missing, v -> Double? in missing == 0 ? nil : v.rounded() }
        let grade = Gen.int(in: 0...4).map { AirKoreaGrade(rawValue: $0) }
        let input = zip(value.array(of: 4), grade.array(of: 4), Gen.int(in: 0...1), Gen.double(in: 0...300))
        seededPropertyCheck(count: 2_000, input: input) { values, grades, late, khai in
            let date = late == 1 ? LocalDate(year: 2024, month: 3, day: 6)! : LocalDate(year: 2017, month: 6, day: 1)!
            var m = HourlyMeasurement(
                stationName: "A", slot: HourSlot(date: date, hour: 10)!, dataTime: "-",
                pm: DustPair(pm10: values[0], pm25: values[1]), pm24h: DustPair(pm10: values[2], pm25: values[3]), khai: khai.rounded(),
                grades: PollutantValues(pm10: grades[0], pm25: grades[1]),
                grades1h: DustPair(pm10: grades[2], pm25: grades[3]), khaiGrade: grades[0])
            let graded = crossCheckGrades(m)
            m.indices = MeasurementIndices(m)
            #expect(crossCheckGrades(m) == graded, "\(m)")
        }
    }
}
