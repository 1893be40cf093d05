import FeedCore
import Foundation
import Testing

/// The JSON reader's own UTF-8 check agrees with the standard library's on any bytes, and its
/// remembered item keys never hand a value to the wrong field.
@Suite struct JSONTextTests {
    let reader = JSONItemReader(schema: FieldSchema(["a", "b", "ab"]), itemPaths: ["items"])

    /// `{"items":[{"a":"<bytes>"}]}` read through the reader: the text of `a`, or nil if refused.
    func readString(_ bytes: [UInt8]) -> String?? {
        var document = Array(#"{"items":[{"a":""#.utf8)
        document += bytes
        document += Array(#""}]}"#.utf8)
        var value: String??
        do {
            _ = try reader.read(data: Data(document), onItem: { value = .some($0.values[0]) })
        } catch {
            return nil
        }
        return value
    }

    @Test func utf8CheckAgreesWithTheStandardLibrary() {
        var random = SystemRandomNumberGenerator()
        // Bytes biased to the interesting ranges: ASCII, continuation bytes, lead bytes, and the
        // edges of overlong forms and surrogates.
        let pool: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                             0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var checked = 0, valid = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...6, using: &random)
            let bytes = (0..<length).map { _ in pool.randomElement(using: &random)! }
            let expected = String(validating: bytes, as: UTF8.self)
            let got = readString(bytes)
            if let expected {
                valid += 1
                #expect(got == .some(.some(expected)), "\(bytes.map { String($0, radix: 16) }) is valid UTF-8")
            } else {
                #expect(got == nil, "\(bytes.map { String($0, radix: 16) }) is not valid UTF-8 but was accepted")
            }
            checked += 1
        }
        #expect(valid > 100 && checked - valid > 100, "the sample must hold both valid and invalid text")
        // Hangul (3-byte) and emoji (4-byte) text survives unchanged.
        #expect(readString(Array("측정소 😀".utf8)) == .some(.some("측정소 😀")))
    }

    @Test func itemsWithKeysInDifferentOrdersKeepTheirValues() throws {
        let document = #"""
        {"items":[{"a":"1","b":"2","ab":"3"},{"b":"5","a":"4","ab":"6"},{"ab":"9","a":"7"},{"a\u0062":"12","a":"10"},{"a":"13","b":"14","ab":"15"}]}
        """#
        var rows: [[String?]] = []
        _ = try reader.read(data: Data(document.utf8), onItem: { rows.append($0.values) })
        #expect(rows == [["1", "2", "3"], ["4", "5", "6"], ["7", nil, "9"], ["10", nil, "12"], ["13", "14", "15"]])
    }
}
