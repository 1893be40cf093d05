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
    func fullDay() throws {
        let daily = IntakeCalculator().daily(on: today, concentrations: constant(35, on: [today]),
                                             distances: constant(2_000, on: [today]))
        #expect(daily.hours.count == 24)
        #expect(daily.total.walkingHoursWithData == 24 && daily.total.walkingHours == 24)
        #expect(daily.total.completeness == 1)
        #expect(daily.total.isComplete)
        #expect(abs(try #require(daily.total.micrograms) - 24 * 21.84) < 1e-9)
    }

    @Test("missing walking hours are counted, not taken as zero; an hour with 0 m is not a walking hour")
    func missingHours() throws {
        var concentrations = constant(40, on: [today])
        var distances = constant(1_000, on: [today])
        concentrations[slot(today, 8)] = nil // walked, but no measurement: unknown
        distances[slot(today, 9)] = nil // measurement, but no distance: unknown
        distances[slot(today, 3)] = 0
        concentrations[slot(today, 3)] = nil // did not walk: known 0 whatever the air, and not a walking hour
        let daily = IntakeCalculator().daily(on: today, concentrations: concentrations, distances: distances)
        #expect(daily.hours.count == 24 && daily.walkingHours.count == 23)
        #expect(daily.total.walkingHours == 23)
        #expect(daily.total.walkingHoursWithData == 21)
        #expect(daily.total.completeness == 21.0 / 23.0)
        #expect(!daily.total.isComplete)
        #expect(daily.hours[8].micrograms == nil && daily.hours[8].distanceMetres == 1_000 && daily.hours[8].concentration == nil)
        #expect(daily.hours[9].micrograms == nil)
        #expect(daily.hours[3].micrograms == 0 && daily.hours[3].hasData && !daily.hours[3].isWalking)
        #expect(daily.hours[9].isWalking, "an unknown distance may have been walked")
        let perHour = 40 * 1.56 * 0.2
        #expect(abs(try #require(daily.total.micrograms) - 21 * perHour) < 1e-9)
    }

    @Test("today before a cutoff expects only the hours before it")
    func cutoff() {
        let calculator = IntakeCalculator()
        let daily = calculator.daily(on: today, concentrations: constant(10, on: [today]), distances: constant(500, on: [today]),
                                     before: slot(today, 15))
        #expect(daily.total.walkingHours == 15)
        #expect(daily.hours.last?.walkingSlot == slot(today, 14))
        #expect(daily.total.isComplete)
        let empty = calculator.daily(on: today.adding(days: 1), concentrations: HourlySeries(), distances: HourlySeries(),
                                     before: slot(today, 15))
        #expect(empty.total == .zero)
        #expect(empty.total.completeness == nil)
    }

    @Test("the week is 7 days D-6 … today; ratio = today ÷ max(week, 1); average = week ÷ 7 when every day has data")
    func weekly() throws {
        let weekly = IntakeCalculator().weekly(endingOn: today, concentrations: constant(35, on: week), distances: constant(2_000, on: week))
        #expect(weekly.days.map(\.date) == week)
        #expect(weekly.days.first?.date == LocalDate(year: 2024, month: 3, day: 6))
        #expect(weekly.today.date == today)
        #expect(weekly.total.walkingHours == 7 * 24 && weekly.total.isComplete)
        #expect(abs(try #require(weekly.total.micrograms) - 7 * 24 * 21.84) < 1e-6)
        #expect(abs(try #require(weekly.todayRatio) - 1.0 / 7.0) < 1e-12)
        #expect(weekly.daysWithData == 7)
        #expect(abs(try #require(weekly.dailyAverageMicrograms) - 24 * 21.84) < 1e-9)
    }

    @Test("a week with days without data averages over the days with data, never counting the others as 0 µg")
    func weekWithMissingDays() throws {
        let weekly = IntakeCalculator().weekly(endingOn: today, concentrations: constant(35, on: Array(week.suffix(2))),
                                               distances: constant(2_000, on: week))
        #expect(weekly.daysWithData == 2)
        #expect(weekly.days.prefix(5).allSatisfy { $0.total.micrograms == nil })
        #expect(weekly.total.walkingHoursWithData == 48 && weekly.total.walkingHours == 168)
        #expect(abs(try #require(weekly.dailyAverageMicrograms) - 24 * 21.84) < 1e-9)
        // Today without data: no share of the week rather than 0 %.
        let noToday = IntakeCalculator().weekly(endingOn: today, concentrations: constant(35, on: [week[0]]),
                                                distances: constant(2_000, on: week))
        #expect(noToday.todayRatio == nil && noToday.total.micrograms != nil)
    }

    @Test("a week without data has no total, no ratio and no average (never 0); a tiny week divides by 1 µg")
    func emptyWeek() throws {
        let weekly = IntakeCalculator().weekly(endingOn: today, concentrations: HourlySeries(), distances: HourlySeries())
        #expect(weekly.days.count == 7)
        #expect(weekly.total.micrograms == nil)
        #expect(weekly.todayRatio == nil)
        #expect(weekly.dailyAverageMicrograms == nil)
        #expect(weekly.total.walkingHoursWithData == 0 && weekly.total.walkingHours == 168)
        #expect(weekly.total.completeness == 0)
        // Nothing walked all week: exactly 0 µg, over no walking hour.
        let still = IntakeCalculator().weekly(endingOn: today, concentrations: HourlySeries(), distances: constant(0, on: week))
        #expect(still.total == .zero && still.total.micrograms == 0 && still.total.completeness == nil)
        #expect(still.dailyAverageMicrograms == 0)
        // A tiny week (< 1 µg) divides by 1, not by itself.
        let tiny = IntakeCalculator().weekly(endingOn: today, concentrations: constant(1, on: [today]),
                                             distances: HourlySeries([slot(today, 10): 100]))
        let ratio = try #require(tiny.todayRatio)
        #expect(abs(ratio - (try #require(tiny.today.total.micrograms))) < 1e-15)
        #expect(ratio < 1)
    }

    @Test("PM10 and PM2.5 are computed separately, by key")
    func dustPair() throws {
        let concentrations = DustPair(pm10: constant(80, on: week), pm25: constant(35, on: week))
        let weekly = IntakeCalculator().weekly(endingOn: today, concentrations: concentrations, distances: constant(2_000, on: week))
        #expect(abs(try #require(weekly.pm10.today.total.micrograms) - 24 * 80 * 1.56 * 0.4) < 1e-9)
        #expect(abs(try #require(weekly.pm25.today.total.micrograms) - 24 * 35 * 1.56 * 0.4) < 1e-9)
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
            let sum = weekly.days.reduce(0) { $0 + ($1.total.micrograms ?? 0) }
            #expect(approximatelyEqual(weekly.total.micrograms ?? .nan, sum))
            let alone = calculator.daily(on: today, concentrations: concentrations.on(today), distances: distances.on(today))
            #expect(alone.total == weekly.today.total)
        }
    }

    // MARK: - Totals count walking hours only

    /// One hour of a generated day: walked or not, metres if walked, the paired measurement.
    typealias GeneratedHour = (walks: Bool, metres: Double, concentration: Double?)

    /// 24 hours of a day: about half walked (1 m … 10 km), three in four measured.
    static let generatedDay = zip(Gen.bool, Gen.double(in: 1...10_000), Gen.double(in: 0...300).optional).array(of: 24)

    /// The day's concentrations and distances (0 m in the hours not walked).
    func series(_ day: [GeneratedHour]) -> (HourlySeries<Double>, HourlySeries<Double>) {
        var concentrations = HourlySeries<Double>(), distances = HourlySeries<Double>()
        for (hour, h) in day.enumerated() {
            concentrations[slot(today, hour)] = h.concentration
            distances[slot(today, hour)] = h.walks ? h.metres : 0
        }
        return (concentrations, distances)
    }

    @Test("a total over walking hours none of which has a measurement is nil, never 0")
    func allWalkingHoursMissingIsNoData() {
        seededPropertyCheck(input: Self.generatedDay) { generated in
            var day = generated.map { h -> GeneratedHour in (h.0, h.1, h.2) }
            day[0].walks = true
            for i in day.indices where day[i].walks { day[i].concentration = nil }
            let (concentrations, distances) = series(day)
            let daily = IntakeCalculator().daily(on: today, concentrations: concentrations, distances: distances)
            #expect(daily.total.micrograms == nil)
            #expect(daily.total.walkingHoursWithData == 0 && daily.total.walkingHours == day.count { $0.walks })
            #expect(daily.total.completeness == 0)
        }
    }

    @Test("completeness = walking hours with a measurement ÷ walking hours; the total sums exactly those hours")
    func completenessCountsWalkingHours() throws {
        let model = InhalationIntakeModel()
        try seededPropertyCheck(input: Self.generatedDay) { generated in
            let day = generated.map { h -> GeneratedHour in (h.0, h.1, h.2) }
            let (concentrations, distances) = series(day)
            let total = IntakeCalculator(model: model).daily(on: today, concentrations: concentrations, distances: distances).total
            let walking = day.filter(\.walks)
            let measured = walking.filter { $0.concentration != nil }
            #expect(total.walkingHours == walking.count && total.walkingHoursWithData == measured.count)
            #expect(total.completeness == (walking.isEmpty ? nil : Double(measured.count) / Double(walking.count)))
            if !walking.isEmpty && measured.isEmpty {
                #expect(total.micrograms == nil)
            } else {
                let expected = try measured.reduce(0.0) { sum, h in
                    sum + (try #require(model.intakeMicrograms(concentration: h.concentration!, distanceMetres: h.metres)))
                }
                #expect(approximatelyEqual(try #require(total.micrograms), expected))
            }
        }
    }

    @Test("a non-walking hour changes nothing, with or without a measurement")
    func nonWalkingHourChangesNothing() {
        let input = zip(Self.generatedDay, Gen.int(in: 0...23), Gen.double(in: 0...300).optional)
        seededPropertyCheck(input: input) { generated, hour, concentration in
            var day = generated.map { h -> GeneratedHour in (h.0, h.1, h.2) }
            let calculator = IntakeCalculator()
            // Making an hour non-walking equals leaving it out of the day's hours altogether.
            day[hour].walks = false
            let (concentrations, distances) = series(day)
            let daily = calculator.daily(on: today, concentrations: concentrations, distances: distances)
            let without = daily.hours.enumerated().filter { $0.offset != hour }.map(\.element)
            #expect(IntakeTotal(of: without) == daily.total)
            // Whatever was measured in it.
            day[hour].concentration = concentration
            let (measured, _) = series(day)
            #expect(calculator.daily(on: today, concentrations: measured, distances: distances).total == daily.total)
            // And a day cut off before its non-walking hours equals the whole day.
            let lastWalked = day.lastIndex { $0.walks } ?? -1
            if lastWalked < 23 {
                let cut = calculator.daily(on: today, concentrations: concentrations, distances: distances,
                                           before: slot(today, lastWalked + 1))
                #expect(cut.total == daily.total)
            }
        }
    }
}
