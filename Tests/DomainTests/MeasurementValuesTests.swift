import Domain
import Testing

@Suite("Calculations on one hour's values")
struct MeasurementValuesTests {
    let date = LocalDate(year: 2024, month: 3, day: 6)!

    @Test("grades are checked from the values given, only where AirKorea supplied one")
    func crossCheckFromValues() {
        let checks = crossCheckGrades(on: date, pm: DustPair(pm10: 20, pm25: nil), pm24h: DustPair(pm10: 45, pm25: 40), khai: 120,
                                      theirs24h: DustPair(pm10: .moderate, pm25: .moderate), theirs1h: DustPair(pm10: .good, pm25: nil),
                                      theirsKhai: nil, indices: nil)
        #expect(checks == [
            GradeCheck(field: .pm10Grade, theirs: .moderate, ours: .moderate, basis: 45),
            GradeCheck(field: .pm25Grade, theirs: .moderate, ours: .bad, basis: 40),
            GradeCheck(field: .pm10Grade1h, theirs: .good, ours: .good, basis: 20),
        ])
    }

    @Test("indices grade the 24-h and hourly PM apart; the CAI needs PM10, PM2.5, NO2 and O3")
    func indicesFromValues() {
        let complete = MeasurementIndices(on: date, pm: DustPair(pm10: 200, pm25: 100), pm24h: DustPair(pm10: 31, pm25: 16),
                                          o3ppm: 0.031, no2ppm: 0.031, coppm: nil, so2ppm: nil)
        #expect(complete.koreanGrade24h == DustPair(pm10: .moderate, pm25: .moderate))
        #expect(complete.koreanGrade1h == DustPair(pm10: .veryBad, pm25: .veryBad))
        #expect(complete.cai == .index(51))
        #expect(complete.caiGrade == .moderate)
        let noGases = MeasurementIndices(on: date, pm: DustPair(pm10: nil, pm25: nil), pm24h: DustPair(pm10: 31, pm25: 16),
                                         o3ppm: nil, no2ppm: nil, coppm: nil, so2ppm: nil)
        #expect(noGases.cai == nil && noGases.caiGrade == nil)
    }

    @Test("hourly PM from slots and values keeps missing values absent; the later value of a slot wins")
    func hourlyPMFromValues() {
        let first = HourSlot(date: date, hour: 0)!, second = HourSlot(date: date, hour: 1)!
        let pm = hourlyPM(from: [(slot: first, pm: DustPair<Double?>(pm10: 30, pm25: nil)),
                                 (slot: second, pm: DustPair<Double?>(pm10: nil, pm25: 12)),
                                 (slot: first, pm: DustPair<Double?>(pm10: 31, pm25: nil))])
        #expect(pm.pm10 == HourlySeries([first: 31.0]))
        #expect(pm.pm25 == HourlySeries([second: 12.0]))
    }
}
