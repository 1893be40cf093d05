import Foundation
import Pipeline
import PropertyBased
import Testing

/// `FeedRequest.percentEncode` encodes byte by byte; it must agree with Foundation's
/// `addingPercentEncoding` over RFC 3986's unreserved set, which it replaced (the redacted URL
/// lands in archives, logs and diagnostics, so any difference would show).
@Suite struct PercentEncodingTests {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    @Test("percent-encoding agrees with Foundation's on generated ASCII, Korean, reserved and astral text")
    func agreesWithFoundation() {
        let pieces = Gen.oneOf(
            Gen.ascii.string(of: 0...6),
            Gen.character(in: "가"..."힣").string(of: 0...3),
            Gen.element(of: ["%", "%2B", "+", "=", "&", "?", "/", " ", "~", "-", "_", ".", "é", "😀", "\u{0}", "\u{7F}", "\u{FEFF}"]).map { $0 ?? "" })
        seededPropertyCheck(count: 1_000, input: pieces.array(of: 0...5).map { $0.joined() }) { text in
            #expect(FeedRequest.percentEncode(text) == text.addingPercentEncoding(withAllowedCharacters: Self.unreserved), "\(text.debugDescription)")
        }
    }

    @Test("a composed URL encodes names and values and leaves unreserved characters as they are")
    func composedURL() throws {
        let base = try #require(URL(string: "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty"))
        let url = FeedRequest.compose(base, [QueryItem("sidoName", "서울"), QueryItem("a b", "x+y=z&~._-")])
        #expect(url == base.absoluteString + "?sidoName=%EC%84%9C%EC%9A%B8&a%20b=x%2By%3Dz%26~._-")
    }
}
