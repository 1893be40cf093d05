import Domain
import PropertyBased
import Testing

@Suite("WHO 2021 guidelines")
struct WHOGuidelineTests {
    @Test("the 2021 table")
    func table() {
        #expect(WHOLevel.allCases.map { WHOGuideline2021.limit(.pm25, .annual, $0) } == [35, 25, 15, 10, 5])
        #expect(WHOLevel.allCases.map { WHOGuideline2021.limit(.pm25, .twentyFourHour, $0) } == [75, 50, 37.5, 25, 15])
        #expect(WHOLevel.allCases.map { WHOGuideline2021.limit(.pm10, .annual, $0) } == [70, 50, 30, 20, 15])
        #expect(WHOLevel.allCases.map { WHOGuideline2021.limit(.pm10, .twentyFourHour, $0) } == [150, 100, 75, 50, 45])
        #expect(WHOLevel.guideline.shortName == "AQG" && WHOLevel.interimTarget3.shortName == "IT-3")
    }

    @Test("exceedance is strictly above a level")
    func exceedance() throws {
        let atAQG = try #require(WHOGuideline2021.assess(.pm25, .twentyFourHour, microgramsPerCubicMetre: 15))
        #expect(!atAQG.exceedsGuideline)
        #expect(atAQG.strictestLevelMet == .guideline)

        let above = try #require(WHOGuideline2021.assess(.pm25, .twentyFourHour, microgramsPerCubicMetre: 15.1))
        #expect(above.exceedsGuideline)
        #expect(above.exceededLevels == [.guideline])
        #expect(above.strictestLevelMet == .interimTarget4)

        let it3 = try #require(WHOGuideline2021.assess(.pm25, .twentyFourHour, microgramsPerCubicMetre: 40))
        #expect(it3.exceededLevels == [.interimTarget3, .interimTarget4, .guideline])
        #expect(it3.strictestLevelMet == .interimTarget2)

        let worst = try #require(WHOGuideline2021.assess(.pm10, .annual, microgramsPerCubicMetre: 80))
        #expect(worst.exceededLevels == WHOLevel.allCases)
        #expect(worst.strictestLevelMet == nil)

        #expect(WHOGuideline2021.assess(.pm10, .annual, microgramsPerCubicMetre: 15)?.exceedsGuideline == false)
        #expect(WHOGuideline2021.assess(.pm10, .twentyFourHour, microgramsPerCubicMetre: 46)?.exceedsGuideline == true)
        #expect(WHOGuideline2021.assess(.pm10, .annual, microgramsPerCubicMetre: -1) == nil)
    }

    @Test("more concentration never exceeds fewer levels")
    func monotone() {
        let input = zip(Gen.double(in: 0...200), Gen.double(in: 0...200), Gen<DustKind>.case, Gen<WHOAveragingPeriod>.case)
        seededPropertyCheck(count: 1_000, input: input) { a, b, kind, period in
            let low = WHOGuideline2021.assess(kind, period, microgramsPerCubicMetre: min(a, b))!
            let high = WHOGuideline2021.assess(kind, period, microgramsPerCubicMetre: max(a, b))!
            #expect(Set(low.exceededLevels).isSubset(of: Set(high.exceededLevels)))
        }
    }
}
