import Domain
import PropertyBased
import Testing

@Suite("US EPA AQI")
struct EPAAQITests {
    let since2024 = LocalDate(year: 2024, month: 5, day: 6)!
    let before2024 = LocalDate(year: 2024, month: 5, day: 5)!

    @Test("PM2.5 worked values, 2024 table (truncate to 0.1, round to nearest)", arguments: [
        (0.0, IndexResult.index(0)), (9.0, .index(50)), (9.1, .index(51)), (9.19, .index(51)), (12.0, .index(56)),
        (35.0, .index(99)), (35.4, .index(100)), (35.49, .index(100)), (35.5, .index(101)), (55.4, .index(150)),
        (55.5, .index(151)), (100.0, .index(182)), (125.4, .index(200)), (125.5, .index(201)), (200.0, .index(275)),
        (225.4, .index(300)), (225.5, .index(301)), (300.0, .index(449)), (325.4, .index(500)),
        (325.5, .beyondScale), (600, .beyondScale),
    ])
    func pm25Since2024(c: Double, expected: IndexResult) {
        #expect(EPAAQI.index(.pm25, microgramsPerCubicMetre: c, on: since2024) == expected)
    }

    @Test("PM2.5 worked values, pre-2024 table selected by date", arguments: [
        (9.0, IndexResult.index(38)), (12.0, .index(50)), (12.1, .index(51)), (35.0, .index(99)), (100.0, .index(174)),
        (150.4, .index(200)), (200.0, .index(250)), (300.0, .index(350)), (350.4, .index(400)),
        (350.5, .index(401)), (500.4, .index(500)), (500.5, .beyondScale),
    ])
    func pm25Before2024(c: Double, expected: IndexResult) {
        #expect(EPAAQI.index(.pm25, microgramsPerCubicMetre: c, on: before2024) == expected)
    }

    @Test("PM10 worked values (truncate to 1 µg/m³)", arguments: [
        (54.0, IndexResult.index(50), IndexResult.index(50)), (54.9, .index(50), .index(50)), (55, .index(51), .index(51)),
        (100, .index(73), .index(73)), (154, .index(100), .index(100)), (155, .index(101), .index(101)),
        (254, .index(150), .index(150)), (255, .index(151), .index(151)), (354, .index(200), .index(200)),
        (355, .index(201), .index(201)), (424, .index(300), .index(300)), (425, .index(301), .index(301)),
        (500, .index(384), .index(395)), (604, .index(500), .index(500)), (605, .beyondScale, .beyondScale),
    ])
    func pm10(c: Double, new: IndexResult, old: IndexResult) {
        #expect(EPAAQI.index(.pm10, microgramsPerCubicMetre: c, on: since2024) == new)
        #expect(EPAAQI.index(.pm10, microgramsPerCubicMetre: c, on: before2024) == old)
    }

    @Test("the 2024 tables take effect on 2024-05-06 (KST date of the slot)")
    func effectiveDate() throws {
        #expect(EPAAQI.table(for: .pm25, on: before2024) == EPAAQI.pm25Before2024)
        #expect(EPAAQI.table(for: .pm25, on: since2024) == EPAAQI.pm25Since2024)
        #expect(EPAAQI.table(for: .pm10, on: since2024) == EPAAQI.pm10Since2024)
        let lastOld = try #require(HourSlot(airKoreaLabel: "2024-05-05 24:00"))
        #expect(EPAAQI.index(.pm25, microgramsPerCubicMetre: 12, at: lastOld) == .index(50))
        #expect(EPAAQI.index(.pm25, microgramsPerCubicMetre: 12, at: lastOld.next) == .index(56))
    }

    @Test("invalid concentrations give no index")
    func invalid() {
        #expect(EPAAQI.index(.pm25, microgramsPerCubicMetre: -0.1, on: since2024) == nil)
        #expect(EPAAQI.index(.pm10, microgramsPerCubicMetre: .nan, on: since2024) == nil)
    }

    @Test("categories", arguments: [
        (0, AQICategory.good), (50, .good), (51, .moderate), (100, .moderate), (101, .unhealthyForSensitiveGroups),
        (150, .unhealthyForSensitiveGroups), (151, .unhealthy), (200, .unhealthy), (201, .veryUnhealthy),
        (300, .veryUnhealthy), (301, .hazardous), (500, .hazardous),
    ])
    func categories(index: Int, category: AQICategory) {
        #expect(AQICategory(index: index) == category)
        #expect(AQICategory(.index(index)) == category)
    }

    @Test("beyond the AQI is Hazardous; negative is no category")
    func categoryEdges() {
        #expect(AQICategory(.beyondScale) == .hazardous)
        #expect(AQICategory(index: -1) == nil)
        #expect(AQICategory.unhealthyForSensitiveGroups.label == "Unhealthy for Sensitive Groups")
    }

    @Test("AQI is monotone in concentration on any date")
    func monotone() {
        let input = zip(Gen.double(in: 0...700), Gen.double(in: 0...700), Gen.int(in: 19_000...20_500), Gen<DustKind>.case)
        seededPropertyCheck(count: 1_000, input: input) { a, b, day, kind in
            let date = LocalDate(daysSinceEpoch: day)
            let low = EPAAQI.index(kind, microgramsPerCubicMetre: min(a, b), on: date)!
            let high = EPAAQI.index(kind, microgramsPerCubicMetre: max(a, b), on: date)!
            #expect(low <= high)
        }
    }

    @Test("reading the tables in place answers as the table in force does (AQI and CAI sub-indices)")
    func inPlaceLookUpsMatchTheirTables() {
        let input = zip(Gen.double(in: -5...1_000), Gen.int(in: 19_000...20_500), Gen<DustKind>.case, Gen<Pollutant>.case)
        seededPropertyCheck(count: 1_000, input: input) { c, day, kind, pollutant in
            let date = LocalDate(daysSinceEpoch: day)
            #expect(EPAAQI.index(kind, microgramsPerCubicMetre: c, on: date) == EPAAQI.table(for: kind, on: date).index(c))
            let gas = c / 500  // ppm: 0 … 2 covers every gas table and beyond
            let concentration = pollutant == .pm10 || pollutant == .pm25 ? c : gas
            #expect(KoreanCAI.subIndex(pollutant, concentration) == KoreanCAI.table(for: pollutant).index(concentration))
            #expect(KoreanCAI.table(for: pollutant).pollutant == pollutant)
        }
    }
}
