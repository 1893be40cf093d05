import Domain
import PropertyBased
import Testing

@Suite("Korean CAI")
struct CAITests {
    @Test("worked sub-indices", arguments: [
        (Pollutant.pm10, 30.0, IndexResult.index(50)), (.pm10, 31, .index(51)), (.pm10, 55, .index(75)),
        (.pm10, 100, .index(142)), (.pm10, 151, .index(251)), (.pm10, 300, .index(334)), (.pm10, 600, .index(500)),
        (.pm10, 601, .beyondScale), (.pm10, 30.9, .index(50)),
        (.pm25, 15, .index(50)), (.pm25, 16, .index(51)), (.pm25, 25, .index(74)), (.pm25, 50, .index(154)),
        (.pm25, 76, .index(251)), (.pm25, 500, .index(500)), (.pm25, 501, .beyondScale),
        (.o3, 0.030, .index(50)), (.o3, 0.031, .index(51)), (.o3, 0.060, .index(75)), (.o3, 0.151, .index(251)),
        (.o3, 0.6, .index(500)), (.o3, 0.601, .beyondScale),
        (.no2, 0.030, .index(50)), (.no2, 0.031, .index(51)), (.no2, 0.201, .index(251)), (.no2, 2.001, .beyondScale),
        (.co, 2.00, .index(50)), (.co, 2.01, .index(51)), (.co, 5.5, .index(75)), (.co, 15.01, .index(251)),
        (.co, 50, .index(500)), (.co, 50.01, .beyondScale),
        (.so2, 0.020, .index(50)), (.so2, 0.021, .index(51)), (.so2, 0.151, .index(251)), (.so2, 1.001, .beyondScale),
    ])
    func subIndex(pollutant: Pollutant, concentration: Double, expected: IndexResult) {
        #expect(KoreanCAI.subIndex(pollutant, concentration) == expected)
    }

    @Test("overall CAI is the highest sub-index; the unverified +50/+75 rule is not applied")
    func overall() {
        // PM10 100 → 142 (나쁨), PM2.5 50 → 154 (나쁨), NO2 0.1 → 나쁨: three pollutants 나쁨.
        let result = KoreanCAI.evaluate(PollutantValues(pm10: 100, pm25: 50, o3: 0.02, no2: 0.1))
        #expect(result.subIndices.pm10 == .index(142))
        #expect(result.subIndices.pm25 == .index(154))
        #expect(result.subIndices.o3 == .index(33))
        #expect(result.overall == .index(154)) // not 154 + 75
        #expect(result.dominantPollutants == [.pm25])
        #expect(result.grade == .bad)
        #expect(result.isComplete)
    }

    @Test("beyondScale dominates; missing pollutants make the result incomplete")
    func beyondAndIncomplete() {
        let result = KoreanCAI.evaluate(PollutantValues(pm10: 700, pm25: 20))
        #expect(result.overall == .beyondScale)
        #expect(result.dominantPollutants == [.pm10])
        #expect(result.grade == .veryBad)
        #expect(!result.isComplete)
        #expect(KoreanCAI.evaluate(PollutantValues<Double>()).overall == nil)
    }

    @Test("CAI grade bands 0–50 / 51–100 / 101–250 / 251–500, published values truncated", arguments: [
        (0.0, AirKoreaGrade.good), (50, .good), (50.9, .good), (51, .moderate), (100, .moderate), (101, .bad),
        (250, .bad), (250.7, .bad), (251, .veryBad), (500, .veryBad), (612, .veryBad),
    ])
    func khaiGrade(khai: Double, grade: AirKoreaGrade) {
        #expect(KoreanCAI.grade(khai: khai) == grade)
    }

    @Test("invalid CAI values are not graded")
    func khaiInvalid() {
        #expect(KoreanCAI.grade(khai: -1) == nil)
        #expect(KoreanCAI.grade(khai: .nan) == nil)
        #expect(KoreanCAI.grade(index: -1) == nil)
        #expect(KoreanCAI.grade(.beyondScale) == .veryBad)
    }
}

@Suite("CAI: the overall index")
struct CAIOverallPropertyTests {
    @Test("the overall CAI is the largest sub-index present, nil when none is")
    func overallIsTheLargestSubIndex() {
        let value = zip(Gen.int(in: 0...3), Gen.double(in: 0...1_200)).map { missing, v -> Double? in missing == 0 ? nil : v / 100 }
        seededPropertyCheck(count: 2_000, input: value.array(of: 6)) { v in
            let result = KoreanCAI.evaluate(PollutantValues(pm10: v[0].map { $0 * 100 }, pm25: v[1].map { $0 * 50 }, o3: v[2], no2: v[3],
                                                            co: v[4].map { $0 * 10 }, so2: v[5]))
            #expect(result.overall == Pollutant.allCases.compactMap { result.subIndices[$0] }.max())
        }
    }
}
