import Domain
import PropertyBased
import Testing

@Suite("HourlySeries")
struct HourlySeriesTests {
    let day = LocalDate(year: 2024, month: 3, day: 6)!

    func slot(_ date: LocalDate, _ hour: Int) -> HourSlot { HourSlot(date: date, hour: hour)! }

    @Test("values stay on their slot when other hours are missing (no positional alignment)")
    func missingHoursElsewhere() {
        let input = zip(Gen.int(in: 0...300).array(of: 24), Gen<UInt32>.bitSet(mask: 0x00FF_FFFF))
        seededPropertyCheck(input: input) { values, missingMask in
            let full = HourlySeries(Dictionary(uniqueKeysWithValues: day.hourSlots.map { ($0, Double(values[$0.hour])) }))
            let gappy = full.filter { slot, _ in missingMask & (1 << UInt32(slot.hour)) == 0 }
            for slot in gappy.slots { #expect(gappy[slot] == full[slot]) }
            #expect(gappy.count == 24 - missingMask.nonzeroBitCount)

            // Intake per walking hour is the same whichever other concentration hours are missing.
            let distances = HourlySeries(Dictionary(uniqueKeysWithValues: day.hourSlots.map { ($0, 1_000.0) }))
            let calculator = IntakeCalculator()
            let fromFull = calculator.hourly(concentrations: full, distances: distances)
            let fromGappy = calculator.hourly(concentrations: gappy, distances: distances)
            for slot in day.hourSlots {
                if gappy[slot] != nil {
                    #expect(fromGappy[slot]?.micrograms == fromFull[slot]?.micrograms)
                } else {
                    #expect(fromGappy[slot]?.micrograms == nil)
                }
            }
        }
    }

    @Test("zip pairs equal slots only")
    func zipByKey() {
        let a = HourlySeries([slot(day, 1): 10.0, slot(day, 2): 20.0, slot(day, 3): 30.0])
        let b = HourlySeries([slot(day, 2): 2.0, slot(day, 3): 3.0, slot(day, 4): 4.0])
        let product = a.zip(b, *)
        #expect(product == HourlySeries([slot(day, 2): 40.0, slot(day, 3): 90.0]))
    }

    @Test("grouping by date splits at KST midnight; byHour gives hours 0…23")
    func groupByDate() {
        let next = day.adding(days: 1)
        let series = HourlySeries([slot(day, 22): 1, slot(day, 23): 2, slot(next, 0): 3, slot(next, 5): 4])
        let groups = series.groupedByDate()
        #expect(groups.keys.sorted() == [day, next])
        #expect(groups[day]?.count == 2)
        #expect(groups[next]?.slots == [slot(next, 0), slot(next, 5)])
        #expect(series.dates == [day, next])
        #expect(series.byHour(on: next) == [0: 3, 5: 4])
        #expect(series.on(day) == groups[day])
        #expect(series.entries.map(\.value) == [1, 2, 3, 4])
    }
}
