@testable import App
import Foundation
import Testing

/// The one JSON writer: value trees of the kinds the commands build, optionals as null, and
/// values of other types written as text rather than looping.
@Suite struct JSONTextTests {
    @Test func valueTreesEncodeWithSortedKeysAndNulls() {
        let missing: Int? = nil
        let present: String? = "서울/종로구"
        let nested: Int?? = .some(nil)
        let tree: [String: Any] = ["b": [1, 2.5, true, NSNull()], "a": missing as Any, "c": present as Any,
                                   "d": nested as Any, "e": Double.infinity, "f": ["x": UInt32(7)]]
        #expect(JSONText.encode(JSONValue(any: tree))
                == #"{"a":null,"b":[1,2.5,true,null],"c":"서울/종로구","d":null,"e":null,"f":{"x":7}}"#)
    }

    struct Opaque: CustomStringConvertible { var description: String { "opaque" } }

    @Test func aTypeOutsideTheListIsWrittenAsTextNotLoopedOn() {
        // Encodable values encode themselves; anything else is its description.
        #expect(JSONText.encode(JSONValue(any: ["f": Float(1.5)])) == #"{"f":1.5}"#)
        #expect(JSONText.encode(JSONValue(any: ["o": Opaque()])) == #"{"o":"opaque"}"#)
        #expect(JSONText.string("a \"quote\" and a\nline") == #""a \"quote\" and a\nline""#)
    }
}
