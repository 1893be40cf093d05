import Foundation
import OpenAQ
import PropertyBased
import Testing

/// The seed every property here starts from, so each run checks the same inputs.
let openAQSeed: (UInt64, UInt64, UInt64, UInt64) =
    (0x6F70_656E_6171_0001, 0x686F_7572_7300_0002, 0x7769_6E64_6F77_0003, 0x666F_756E_6400_0004)

/// Checks `body` on `count` inputs drawn from `input` with a fixed Xoshiro seed (PropertyBased's
/// `.fixedSeed` is for reproducing one failure, not for staying on a passing test).
func seededPropertyCheck<Value>(count: Int = 500, input: Generator<Value, some Sequence>, perform body: (Value) throws -> Void) rethrows {
    var rng = Xoshiro(seed: openAQSeed)
    for _ in 0..<count { try body(input.run(using: &rng)) }
}

/// Instants from 2001 to 2099, whole seconds.
let instants = Gen.int(in: 1_000_000_000...4_070_000_000).map { Date(timeIntervalSince1970: TimeInterval($0)) }

/// `instant` written in local time at `offsetMinutes` east of UTC, with that offset (`+09:00`).
func written(_ instant: Date, offsetMinutes: Int) -> String {
    let local = OpenAQTime.format(instant.addingTimeInterval(TimeInterval(offsetMinutes * 60)))
    let sign = offsetMinutes < 0 ? "-" : "+"
    let m = abs(offsetMinutes)
    let pad = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
    return local.dropLast() + "\(sign)\(pad(m / 60)):\(pad(m % 60))"
}

@Suite("OpenAQ windows, times and found")
struct WindowPropertyTests {
    // MARK: - Times

    @Test("a timestamp written at any offset reads back as the same instant; without an offset it is refused")
    func offsetsRoundTrip() {
        seededPropertyCheck(input: zip(instants, Gen.int(in: -(14 * 4)...(14 * 4)))) { instant, quarters in
            let text = written(instant, offsetMinutes: quarters * 15)
            #expect(OpenAQTime.parse(text) == instant, "\(text)")
            #expect(OpenAQTime.parse(OpenAQTime.format(instant)) == instant)
            #expect(OpenAQTime.format(instant).hasSuffix("Z"))
            #expect(OpenAQTime.parse(String(text.prefix(19))) == nil, "no offset: never guessed")
        }
    }

    @Test("fixed timestamps: OpenAQ's forms, and what is refused")
    func fixedTimestamps() {
        let five = Date(timeIntervalSince1970: 1_709_701_200)  // 2024-03-06T05:00:00Z
        for text in ["2024-03-06T05:00:00Z", "2024-03-06T05:00:00+00:00", "2024-03-06T14:00:00+09:00", "2024-03-06T14:00:00+0900",
                     "2024-03-06T14:00:00+09", "2024-03-05T22:00:00-07:00", "2024-03-06 05:00:00Z"] {
            #expect(OpenAQTime.parse(text) == five, "\(text)")
        }
        #expect(OpenAQTime.parse("2024-03-06T05:00:00.250Z") == five.addingTimeInterval(0.25))
        for text in ["2024-03-06", "2024-03-06T05:00:00", "2024-03-06T24:00:00Z", "2024-02-30T05:00:00Z", "2024-03-06T05:00:00+19:00",
                     "2024-03-06T05:00:00Zulu", "+024-03-06T05:00:00Z", "2024-03-06T05:00:00.Z", ""] {
            #expect(OpenAQTime.parse(text) == nil, "\(text)")
        }
    }

    // MARK: - found

    @Test("found: a count, or >N; anything else is unreadable, never a number")
    func foundParsing() {
        seededPropertyCheck(input: Gen.int(in: 0...Int(Int32.max))) { n in
            #expect(OpenAQFound(wire: String(n)) == .exactly(n))
            #expect(OpenAQFound(wire: String(n)).reportedTotal == n)
            #expect(OpenAQFound(wire: ">\(n)") == .moreThan(n))
            #expect(OpenAQFound(wire: " > \(n) ") == .moreThan(n))
            #expect(OpenAQFound(wire: ">\(n)").reportedTotal == nil && OpenAQFound(wire: ">\(n)").atLeast == n + 1)
            #expect(OpenAQFound(wire: "-\(n + 1)") == .unreadable("-\(n + 1)"))
        }
        seededPropertyCheck(input: Gen.ascii.string(of: 0...8)) { text in
            switch OpenAQFound(wire: text) {
            case .exactly(let n): #expect(text.trimmingCharacters(in: .whitespaces) == String(n), "\(text)")
            case .moreThan(let n): #expect(text.trimmingCharacters(in: .whitespaces).hasPrefix(">") && n >= 0, "\(text)")
            case .absent: #expect(text.trimmingCharacters(in: .whitespaces).isEmpty)
            case .unreadable(let raw): #expect(raw == text)
            }
        }
        #expect(OpenAQFound(wire: nil) == .absent)
        #expect(OpenAQFound(wire: ">1000") == .moreThan(1000))
        #expect(OpenAQFound(wire: "1.5") == .unreadable("1.5"))
        #expect(OpenAQFound(wire: "99999999999999999999999") == .unreadable("99999999999999999999999"))
    }

    // MARK: - Windows

    /// start, span (hours to the end, or nil), window hours, overlap hours (< window), bookmark offset (hours from start, or nil).
    let plans = zip(instants, Gen.int(in: 1...2_000).optional(), Gen.int(in: 1...744), Gen.int(in: 0...168), Gen.int(in: -100...3_000).optional())

    @Test("a window starts no earlier than datetime_from, lasts at most window_hours, ends no later than datetime_to")
    func windowBounds() {
        seededPropertyCheck(input: plans) { start, span, windowHours, overlapRaw, bookmarkHours in
            let overlap = min(overlapRaw, windowHours - 1)
            let end = span.map { start.addingTimeInterval(TimeInterval($0 * 3600)) }
            let bookmark = bookmarkHours.map { start.addingTimeInterval(TimeInterval($0 * 3600)) }
            guard let w = OpenAQHoursWindow.next(start: start, end: end, bookmark: bookmark, window: TimeInterval(windowHours * 3600),
                                                 overlap: TimeInterval(overlap * 3600)) else {
                // Nothing left: only when the bookmark or the resumed start reached the end.
                let resumed = max(start, bookmark.map { $0.addingTimeInterval(TimeInterval(-overlap * 3600)) } ?? start)
                #expect(end.map { e in resumed >= e || bookmark.map { b in b >= e } == true } == true)
                return
            }
            #expect(w.from >= start && w.from < w.to)
            #expect(w.to.timeIntervalSince(w.from) <= TimeInterval(windowHours * 3600))
            if let end { #expect(w.to <= end) }
            if let bookmark { #expect(w.from >= bookmark.addingTimeInterval(TimeInterval(-overlap * 3600))) }
            #expect(OpenAQTime.parse(w.datetimeFrom) == w.from && OpenAQTime.parse(w.datetimeTo) == w.to)
            #expect(w.datetimeFrom.hasSuffix("Z") && w.datetimeTo.hasSuffix("Z"))
        }
    }

    @Test("resuming from each window's end covers (datetime_from, datetime_to] hour by hour: each hour once without overlap, none missed with it")
    func windowsCoverTheRange() {
        let input = zip(instants.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 / 3600).rounded(.down) * 3600) },
                        Gen.int(in: 1...500), Gen.int(in: 1...200), Gen.int(in: 0...24))
        seededPropertyCheck(count: 200, input: input) { start, spanHours, windowHours, overlapRaw in
            let overlap = min(overlapRaw, windowHours - 1)
            let end = start.addingTimeInterval(TimeInterval(spanHours * 3600))
            var bookmark: Date?
            var seen: [Int: Int] = [:]  // hour end (hours after start) → times asked
            var previous: OpenAQHoursWindow?
            var steps = 0
            while let w = OpenAQHoursWindow.next(start: start, end: end, bookmark: bookmark, window: TimeInterval(windowHours * 3600),
                                                 overlap: TimeInterval(overlap * 3600)) {
                steps += 1
                guard steps <= spanHours + 1 else { Issue.record("no progress: \(w)"); return }
                if let previous {
                    #expect(w.to > previous.to, "every window moves forward")
                    #expect(w.from <= previous.to, "no gap")
                    #expect(previous.to.timeIntervalSince(w.from) <= TimeInterval(overlap * 3600), "overlap at most overlap_hours")
                }
                for h in 1...spanHours {
                    let hourEnd = start.addingTimeInterval(TimeInterval(h * 3600))
                    if w.contains(periodEnd: hourEnd) { seen[h, default: 0] += 1 }
                }
                previous = w
                bookmark = w.to  // read up to the window's end
            }
            #expect(previous?.to == end, "reaches datetime_to")
            #expect(seen.count == spanHours, "every hour asked for")
            if overlap == 0 {
                #expect(seen.values.allSatisfy { $0 == 1 }, "each hour asked once")
                #expect(steps == (spanHours + windowHours - 1) / windowHours)
            }
        }
    }

    @Test("a later bookmark never moves the window back; how far a window was read is its end or the fetch, whichever came first")
    func monotonicAndScanned() {
        seededPropertyCheck(input: zip(instants, Gen.int(in: 0...5_000), Gen.int(in: 0...5_000), Gen.int(in: 1...744), Gen.int(in: -10_000_000...10_000_000))) { start, a, b, windowHours, fetchOffset in
            let early = start.addingTimeInterval(TimeInterval(min(a, b) * 3600)), late = start.addingTimeInterval(TimeInterval(max(a, b) * 3600))
            let window = TimeInterval(windowHours * 3600), overlap = TimeInterval((windowHours - 1) / 2 * 3600)
            let w1 = OpenAQHoursWindow.next(start: start, end: nil, bookmark: early, window: window, overlap: overlap)
            let w2 = OpenAQHoursWindow.next(start: start, end: nil, bookmark: late, window: window, overlap: overlap)
            if let w1, let w2 { #expect(w2.from >= w1.from && w2.to >= w1.to) } else { Issue.record("an open-ended window always exists") }
            let fetched = start.addingTimeInterval(TimeInterval(fetchOffset))
            let through = OpenAQHoursWindow.scannedThrough(windowEnd: late, fetchedAt: fetched)
            #expect(through <= late && through <= fetched && (through == late || through == fetched))
        }
    }
}
