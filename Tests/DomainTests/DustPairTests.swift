import Domain
import PropertyBased
import Testing

@Suite("DustPair")
struct DustPairTests {
    let pairs = zip(Gen.int(in: -10_000...10_000), Gen.int(in: -10_000...10_000)).map { DustPair(pm10: $0, pm25: $1) }

    @Test("map with the identity returns the same pair")
    func mapIdentity() {
        seededPropertyCheck(input: pairs) { pair in
            #expect(pair.map { $0 } == pair)
        }
    }

    @Test("map composes: map(f).map(g) == map(g ∘ f)")
    func mapComposition() {
        seededPropertyCheck(input: zip(pairs, Gen.int(in: -50...50), Gen.int(in: -50...50))) { pair, a, b in
            let f: (Int) -> Int = { a * $0 + b }
            let g: (Int) -> String = { String($0 * 3 - 1) }
            #expect(pair.map(f).map(g) == pair.map { g(f($0)) })
        }
    }

    @Test("zip combines member by member; the kind subscript reads and writes one member")
    func zipAndSubscript() {
        var pair = DustPair(pm10: 80.0, pm25: 35.0)
        #expect(pair.zip(DustPair(pm10: 2.0, pm25: 4.0), *) == DustPair(pm10: 160.0, pm25: 140.0))
        #expect(pair[.pm10] == 80 && pair[.pm25] == 35)
        pair[.pm25] = 12
        #expect(pair == DustPair(pm10: 80, pm25: 12))
    }

    @Test("coarse is PM10 − PM2.5 only when both exist and PM2.5 ≤ PM10")
    func coarse() {
        #expect(DustPair<Double?>(pm10: 80, pm25: 35).coarse == 45)
        #expect(DustPair<Double?>(pm10: 30, pm25: 35).coarse == nil)
        #expect(DustPair<Double?>(pm10: nil, pm25: 35).coarse == nil)
    }
}
