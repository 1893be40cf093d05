import Domain
import PropertyBased
import Testing

@Suite("Daily and weekly intake")
struct IntakeTotalsTests {
    let today = LocalDate(year: 2024, month: 3, day: 12)!

    func slot(_ date: LocalDate, _ hour: Int) -> HourSlot { HourSlot(date: date, hour: hour)! }

    /// A constant value for every hour of the given dates.
    func constant(_ value: Double, on dates: [LocalDate]) -> HourlySeries<Double> {
        HourlySeries(Dictionary(uniqueKeysWithValues: dates.flatMap(\.hourSlots).map { ($0, value) }))
    }

    var week: [LocalDate] { (-6...0).map { today.adding(days: $0) } }

    @Test("walking slot h pairs with measurement slot h, i.e. AirKorea's `(h+1):00` value; 23 h pairs with `24:00`")
    func pairing() throws {
        let walking = slot(today, 23)
        let paired = SlotPairing.sameInterval.concentrationSlot(forWalkingSlot: walking)
        #expect(paired.airKoreaLabel == "2024-03-12 24:00")
        #expect(try #require(HourSlot(airKoreaLabel: "2024-03-12 15:00")) == SlotPairing.sameInterval.concentrationSlot(forWalkingSlot: slot(today, 14)))
        // The app's lag: walking slot h with the value labelled h:00; hour 0 with the previous day's 24:00.
        #expect(SlotPairing.legacyOneHourLag.concentrationSlot(forWalkingSlot: slot(today, 14)).airKoreaLabel == "2024-03-12 14:00")
        #expect(SlotPairing.legacyOneHourLag.concentrationSlot(forWalkingSlot: slot(today, 0)).airKoreaLabel == "2024-03-11 24:00")
    }

    @Test("a full day: 24 hours with data, total is the sum")
    func fullDay() {
        let daily = IntakeCalculator().daily(on: today, concentrations: constant(35, on: [today]),
                                             distances: constant(2_000, on: [today]))
        #expect(daily.hours.count == 24)
        #expect(daily.total.hoursWithData == 24 && daily.total.hoursExpected == 24)
        #expect(daily.total.completeness == 1)
        #expect(daily.total.isComplete)
        #expect(abs(daily.total.micrograms - 24 * 21.84) < 1e-9)
    }

    @Test("missing hours are counted, not taken as zero; 0 m with no concentration is a known 0")
    func missingHours() {
        var concentrations = constant(40, on: [today])
        var distances = constant(1_000, on: [today])
        concentrations[slot(today, 8)] = nil // walked, but no measurement: unknown
        distances[slot(today, 9)] = nil // measurement, but no distance: unknown
        distances[slot(today, 3)] = 0
        concentrations[slot(today, 3)] = nil // did not walk: known 0 whatever the air
        let daily = IntakeCalculator().daily(on: today, concentrations: concentrations, distances: distances)
        #expect(daily.total.hoursExpected == 24)
        #expect(daily.total.hoursWithData == 22)
        #expect(daily.total.completeness == 22.0 / 24.0)
        #expect(!daily.total.isComplete)
        #expect(daily.hours[8].micrograms == nil && daily.hours[8].distanceMetres == 1_000 && daily.hours[8].concentration == nil)
        #expect(daily.hours[9].micrograms == nil)
        #expect(daily.hours[3].micrograms == 0 && daily.hours[3].hasData)
        let perHour = 40 * 1.56 * 0.2
        #expect(abs(daily.total.micrograms - 21 * perHour) < 1e-9)
    }

    @Test("today before a cutoff expects only the hours before it")
    func cutoff() {
        let calculator = IntakeCalculator()
        let daily = calculator.daily(on: today, concentrations: constant(10, on: [today]), distances: constant(500, on: [today]),
                                     before: slot(today, 15))
        #expect(daily.total.hoursExpected == 15)
        #expect(daily.hours.last?.walkingSlot == slot(today, 14))
        #expect(daily.total.isComplete)
        let empty = calculator.daily(on: today.adding(days: 1), concentrations: HourlySeries(), distances: HourlySeries(),
                                     before: slot(today, 15))
        #expect(empty.total == .zero)
        #expect(empty.total.completeness == nil)
    }

    @Test("the week is 7 days D-6 … today; ratio = today ÷ max(week, 1); average = week ÷ 7")
    func weekly() {
        let weekly = IntakeCalculator().weekly(endingOn: today, concentrations: constant(35, on: week), distances: constant(2_000, on: week))
        #expect(weekly.days.map(\.date) == week)
        #expect(weekly.days.first?.date == LocalDate(year: 2024, month: 3, day: 6))
        #expect(weekly.today.date == today)
        #expect(weekly.total.hoursExpected == 7 * 24 && weekly.total.isComplete)
        #expect(abs(weekly.total.micrograms - 7 * 24 * 21.84) < 1e-6)
        #expect(abs(weekly.todayRatio - 1.0 / 7.0) < 1e-12)
        #expect(abs(weekly.dailyAverageMicrograms - 24 * 21.84) < 1e-9)
    }

    @Test("a week with no intake has ratio 0 (denominator clamped to 1 µg), average 0, and says it has no data")
    func emptyWeek() {
        let weekly = IntakeCalculator().weekly(endingOn: today, concentrations: HourlySeries(), distances: HourlySeries())
        #expect(weekly.days.count == 7)
        #expect(weekly.todayRatio == 0)
        #expect(weekly.dailyAverageMicrograms == 0)
        #expect(weekly.total.hoursWithData == 0 && weekly.total.hoursExpected == 168)
        #expect(weekly.total.completeness == 0)
        // A tiny week (< 1 µg) divides by 1, not by itself.
        let tiny = IntakeCalculator().weekly(endingOn: today, concentrations: constant(1, on: [today]),
                                             distances: HourlySeries([slot(today, 10): 100]))
        #expect(abs(tiny.todayRatio - tiny.today.total.micrograms) < 1e-15)
        #expect(tiny.todayRatio < 1)
    }

    @Test("PM10 and PM2.5 are computed separately, by key")
    func dustPair() {
        let concentrations = DustPair(pm10: constant(80, on: week), pm25: constant(35, on: week))
        let weekly = IntakeCalculator().weekly(endingOn: today, concentrations: concentrations, distances: constant(2_000, on: week))
        #expect(abs(weekly.pm10.today.total.micrograms - 24 * 80 * 1.56 * 0.4) < 1e-9)
        #expect(abs(weekly.pm25.today.total.micrograms - 24 * 35 * 1.56 * 0.4) < 1e-9)
        let daily = IntakeCalculator().daily(on: today, concentrations: concentrations, distances: constant(2_000, on: week))
        #expect(daily.map(\.total) == weekly.map(\.today.total))
    }

    @Test("legacy app mode: the app's lag, float truncation and indoor rule")
    func legacyApp() {
        var concentrations = HourlySeries<Double>()
        concentrations[slot(today, 13)] = 50 // labelled 14:00
        concentrations[slot(today, 14)] = 999 // labelled 15:00: the hour actually walked in
        let distances = HourlySeries([slot(today, 14): 1_000.0, slot(today, 15): 400.0])
        let legacy = IntakeCalculator.legacyApp()
        let hour = legacy.hourly(walkingSlot: slot(today, 14), concentrations: concentrations, distances: distances)
        #expect(hour.concentrationSlot.airKoreaLabel == "2024-03-12 14:00")
        #expect(hour.micrograms == 17) // 50 × 1000 → 17 in floating point
        #expect(IntakeCalculator.legacyApp(arithmetic: .exactInteger)
            .hourly(walkingSlot: slot(today, 14), concentrations: concentrations, distances: distances).micrograms == 18)
        // 400 m is "indoors": a known 0 even though no concentration is paired with it.
        let indoor = legacy.hourly(walkingSlot: slot(today, 15), concentrations: HourlySeries(), distances: distances)
        #expect(indoor.micrograms == 0)
        // The honest default pairs the same hour instead.
        #expect(IntakeCalculator().hourly(walkingSlot: slot(today, 14), concentrations: concentrations, distances: distances).concentration == 999)
    }

    @Test("week total equals the sum of its days, and each day is independent of the others' data")
    func weekIsSumOfDays() {
        let input = Gen.double(in: 0...200).array(of: 7)
        seededPropertyCheck(count: 100, input: input) { perDay in
            var concentrations = HourlySeries<Double>()
            for (i, date) in week.enumerated() { for s in date.hourSlots { concentrations[s] = perDay[i] } }
            let distances = constant(1_500, on: week)
            let calculator = IntakeCalculator()
            let weekly = calculator.weekly(endingOn: today, concentrations: concentrations, distances: distances)
            let sum = weekly.days.reduce(0) { $0 + $1.total.micrograms }
            #expect(approximatelyEqual(weekly.total.micrograms, sum))
            let alone = calculator.daily(on: today, concentrations: concentrations.on(today), distances: distances.on(today))
            #expect(alone.total == weekly.today.total)
        }
    }
}
