import FeedCore
import Foundation
import PropertyBased
import Testing

/// `WireValue.decimal`: the number reader of the JSON feeds.
@Suite struct DecimalTests {
    @Test func everyFiniteDoubleReadsBackAsItself() {
        seededPropertyCheck(input: Gen.double(in: -1e12...1e12)) { value in
            #expect(WireValue.decimal(String(value)) == value)
            #expect(WireValue.decimal(String(format: "%.17g", value)) == value)
        }
    }

    @Test func whatDoubleAloneWouldTakeIsRefused() {
        for text in ["0x10", "nan", "inf", "-inf", "1e-400", "1e400", "", "-", ".", "1e", "1e+", "1.2.3", "--1", "1-2", " 1", "1,5"] {
            #expect(WireValue.decimal(text) == nil, "\(text)")
        }
        for (text, value) in [("0", 0.0), ("-0.0", 0.0), ("1e-05", 0.00001), ("12.5", 12.5), ("-3", -3.0), (".5", 0.5), ("5.", 5.0), ("2E+3", 2000.0)] {
            #expect(WireValue.decimal(text) == value, "\(text)")
        }
    }
}
