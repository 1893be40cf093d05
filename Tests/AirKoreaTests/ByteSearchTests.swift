import FeedCore
import PropertyBased
import Testing

/// `ByteSearch` (glibc's memmem) against the plainest search there is: try every offset.
@Suite("Byte search: the first occurrence, as a naive scan finds it")
struct ByteSearchTests {
    /// Bytes from a small alphabet (quotes, angle brackets, letters), so needles recur.
    static let alphabet: [UInt8] = Array("\"<>:ab".utf8)

    static func naive(_ needle: [UInt8], _ haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty else { return 0 }
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test("the offset memmem gives is the first one a naive scan finds, or both find none")
    func agreesWithANaiveScan() {
        let bytes = Gen.int(in: 0...(Self.alphabet.count - 1)).map { Self.alphabet[$0] }
        seededPropertyCheck(count: 2_000, input: zip(bytes.array(of: 0...6), bytes.array(of: 0...80))) { needle, haystack in
            let found = needle.withUnsafeBufferPointer { n in haystack.withUnsafeBufferPointer { h in ByteSearch.firstOffset(of: n, in: h) } }
            #expect(found == Self.naive(needle, haystack), "needle \(needle) in \(haystack)")
        }
    }

    @Test("contains, searching by any pivot byte of the needle, agrees with a naive scan")
    func containsByPivotAgreesWithANaiveScan() {
        let bytes = Gen.int(in: 0...(Self.alphabet.count - 1)).map { Self.alphabet[$0] }
        seededPropertyCheck(count: 2_000, input: zip(bytes.array(of: 1...6), bytes.array(of: 0...80), Gen.int(in: 0...5))) { needle, haystack, pivot in
            let found = haystack.withUnsafeBufferPointer { ByteSearch.contains(needle, pivot: pivot % needle.count, in: $0) }
            #expect(found == (Self.naive(needle, haystack) != nil), "needle \(needle) pivot \(pivot % needle.count) in \(haystack)")
        }
    }

    @Test("a field name found in a page's head, and one that is absent")
    func fieldNames() {
        let head = Array(#"{"response":{"body":{"items":[{"stationName":"종로구","pm10Value":"41"}]}}}"#.utf8)
        let find = { (name: String) -> Int? in
            Array(name.utf8).withUnsafeBufferPointer { n in head.withUnsafeBufferPointer { h in ByteSearch.firstOffset(of: n, in: h) } }
        }
        #expect(find(#""pm10Value""#) == 57)  // 종로구 is 9 bytes of UTF-8
        #expect(find(#""caiValue""#) == nil)
    }
}
