import AirKorea
import Domain
import Testing

@Suite("Korean CAI of a measurement")
struct MeasurementCAITests {
    @Test("a measurement's CAI uses its 24-h PM values and 1-h gases")
    func fromMeasurement() {
        let m = HourlyMeasurement(stationName: "종로구", slot: HourSlot(date: LocalDate(year: 2024, month: 3, day: 6)!, hour: 10)!,
                                  dataTime: "2024-03-06 11:00", pm: DustPair(pm10: 200, pm25: 100),
                                  pm24h: DustPair(pm10: 31, pm25: 16), o3ppm: 0.031, no2ppm: 0.031)
        let result = KoreanCAI.evaluate(m)
        #expect(result.subIndices.pm10 == .index(51))
        #expect(result.subIndices.pm25 == .index(51))
        #expect(result.overall == .index(51))
        #expect(Set(result.dominantPollutants) == [.pm10, .pm25, .o3, .no2])
    }
}

@Suite("Hourly PM of measurements")
struct MeasurementHourlyPMTests {
    let day = LocalDate(year: 2024, month: 3, day: 6)!

    func slot(_ date: LocalDate, _ hour: Int) -> HourSlot { HourSlot(date: date, hour: hour)! }

    @Test("the `D 24:00` value is keyed under D hour 23, not D+1 hour 0")
    func label2400Grouping() throws {
        let m = HourlyMeasurement(stationName: "종로구", slot: try #require(HourSlot(airKoreaLabel: "2024-03-06 24:00")),
                                  dataTime: "2024-03-06 24:00", pm: DustPair(pm10: 42, pm25: 21))
        let pm = hourlyPM(from: [m])
        #expect(pm.pm10.byHour(on: day) == [23: 42])
        #expect(pm.pm25.byHour(on: day.adding(days: 1)).isEmpty)
    }

    @Test("hourlyPM keeps missing values absent, never 0")
    func hourlyPMFromMeasurements() {
        let ms = [
            HourlyMeasurement(stationName: "A", slot: slot(day, 0), dataTime: "2024-03-06 01:00", pm: DustPair(pm10: 30, pm25: nil)),
            HourlyMeasurement(stationName: "A", slot: slot(day, 1), dataTime: "2024-03-06 02:00", pm: DustPair(pm10: nil, pm25: 12)),
        ]
        let pm = hourlyPM(from: ms)
        #expect(pm.pm10 == HourlySeries([slot(day, 0): 30.0]))
        #expect(pm.pm25 == HourlySeries([slot(day, 1): 12.0]))
        #expect(pm.pm10[slot(day, 1)] == nil)
    }
}
