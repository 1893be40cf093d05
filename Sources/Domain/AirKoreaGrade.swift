/// A grade as AirKorea publishes it: 1 좋음, 2 보통, 3 나쁨, 4 매우나쁨.
public enum AirKoreaGrade: Int, Hashable, Sendable, Codable, CaseIterable, Comparable {
    case good = 1, moderate = 2, bad = 3, veryBad = 4

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// The Korean label used by AirKorea.
    public var korean: String {
        switch self {
        case .good: "좋음"
        case .moderate: "보통"
        case .bad: "나쁨"
        case .veryBad: "매우나쁨"
        }
    }
}
