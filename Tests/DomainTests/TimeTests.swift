import Domain
import Foundation
import PropertyBased
import Testing

@Suite("Time: LocalDate and HourSlot")
struct TimeTests {
    /// Days since epoch covering 1900-01-01 … 2100-12-31.
    let days = Gen.int(in: -25_567...47_482)
    var slots: Generator<HourSlot, some SendableSequenceType> {
        zip(days, Gen.int(in: 0...23)).map { HourSlot(date: LocalDate(daysSinceEpoch: $0), hour: $1)! }
    }

    @Test("AirKorea `D 24:00` is the last slot of D, ending at D+1 00:00 KST, and round-trips")
    func label2400() throws {
        let slot = try #require(HourSlot(airKoreaLabel: "2024-03-06 24:00"))
        #expect(slot.date == LocalDate(year: 2024, month: 3, day: 6))
        #expect(slot.hour == 23)
        #expect(iso8601UTC(slot.end) == "2024-03-06T15:00:00Z") // 2024-03-07 00:00 KST
        #expect(iso8601UTC(slot.start) == "2024-03-06T14:00:00Z")
        #expect(slot.airKoreaLabel == "2024-03-06 24:00")
        #expect(slot.next == HourSlot(date: LocalDate(year: 2024, month: 3, day: 7)!, hour: 0))
        #expect(slot.next.airKoreaLabel == "2024-03-07 01:00")
        #expect(HourSlot(airKoreaLabel: "2024-03-06 01:00")?.hour == 0)
    }

    @Test("labels AirKorea never sends are rejected", arguments: [
        "2024-03-06 00:00", "2024-03-06 25:00", "2024-02-30 10:00", "2024-03-06 10:30", "2024-03-06", "-", "",
    ])
    func rejectedLabels(label: String) {
        #expect(HourSlot(airKoreaLabel: label) == nil)
    }

    @Test("every slot's AirKorea label parses back to the same slot")
    func slotLabelRoundTrip() {
        seededPropertyCheck(input: slots) { slot in
            #expect(HourSlot(airKoreaLabel: slot.airKoreaLabel) == slot)
        }
    }

    @Test("every valid label (HH 01…24) survives label → slot → label, with 24:00 normalised to hour 23")
    func labelRoundTrip() throws {
        try seededPropertyCheck(input: zip(days, Gen.int(in: 1...24))) { day, hh in
            let label = "\(LocalDate(daysSinceEpoch: day)) \(hh < 10 ? "0" : "")\(hh):00"
            let slot = try #require(HourSlot(airKoreaLabel: label))
            #expect(slot.airKoreaLabel == label)
            #expect(slot.hour == hh - 1)
            #expect(HourSlot(containing: slot.end) == slot.next)
        }
    }

    @Test("LocalDate days-since-epoch round trip over years 1…9999")
    func daysSinceEpochRoundTrip() {
        seededPropertyCheck(input: Gen.int(in: -719_162...2_932_896)) { z in
            let date = LocalDate(daysSinceEpoch: z)
            #expect(date.daysSinceEpoch == z)
            #expect(LocalDate(year: date.year, month: date.month, day: date.day) == date)
            #expect(LocalDate(iso: date.description) == date)
            #expect(date.adding(days: 1) > date)
        }
        #expect(LocalDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(LocalDate(year: 2024, month: 2, day: 29)!.adding(days: 1).description == "2024-03-01")
    }

    @Test("iso8601UTC agrees with Foundation's ISO 8601 formatter for any second of years 1583…9999")
    func iso8601MatchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        // -12_212_553_600 is 1583-01-01T00:00:00Z (Foundation switches to the Julian calendar before
        // October 1582; feedline's dates are proleptic Gregorian, as ISO 8601 has them);
        // 253_402_300_799 is 9999-12-31T23:59:59Z.
        seededPropertyCheck(input: Gen.int(in: -12_212_553_600...253_402_300_799)) { seconds in
            let instant = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(iso8601UTC(instant) == formatter.string(from: instant))
        }
        #expect(iso8601UTC(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(iso8601UTC(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
    }

    @Test("hour arithmetic: hoursSinceEpoch round-trips, previous and next are inverse, slot contains its start")
    func hourArithmetic() {
        seededPropertyCheck(input: zip(slots, Gen.int(in: -1_000...1_000))) { slot, n in
            #expect(HourSlot(hoursSinceEpoch: slot.hoursSinceEpoch) == slot)
            #expect(slot.previous.next == slot)
            #expect(slot.next.previous == slot)
            #expect(slot.adding(hours: n).adding(hours: -n) == slot)
            #expect(HourSlot(containing: slot.start) == slot)
        }
        let midnight = HourSlot(date: LocalDate(year: 2024, month: 1, day: 1)!, hour: 0)!
        #expect(midnight.previous.airKoreaLabel == "2023-12-31 24:00")
    }

    @Test("a date has 24 slots, hours 0…23 in order")
    func hourSlotsOfDate() {
        let slots = LocalDate(year: 2024, month: 3, day: 6)!.hourSlots
        #expect(slots.map(\.hour) == Array(0...23))
        #expect(slots.first?.airKoreaLabel == "2024-03-06 01:00")
        #expect(slots.last?.airKoreaLabel == "2024-03-06 24:00")
    }
}
