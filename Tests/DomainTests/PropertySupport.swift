import PropertyBased
import Testing

/// The seed every property in this target starts from, so each run checks the same inputs.
let domainSeed: (UInt64, UInt64, UInt64, UInt64) =
    (0x6665_6564_6C69_6E65, 0x646F_6D61_696E_0003, 0x5345_4F55_4C00_0024, 0x4B53_5400_0000_0009)

/// Checks `body` on `count` inputs drawn from `input` with a fixed Xoshiro seed.
///
/// This is PropertyBased's `propertyCheck` made deterministic. The library's own `.fixedSeed`
/// trait is meant for reproducing one failure: it runs a single input and records an issue when
/// nothing fails, so it cannot stay on a passing test. Drawing from `Generator.run(using:)` with
/// a seeded `Xoshiro` gives the same inputs on every run instead. `#expect` failures inside
/// `body` show the values involved.
func seededPropertyCheck<Value>(
    count: Int = 300,
    seed: (UInt64, UInt64, UInt64, UInt64) = domainSeed,
    input: Generator<Value, some Sequence>,
    perform body: (Value) throws -> Void
) rethrows {
    var rng = Xoshiro(seed: seed)
    for _ in 0..<count {
        try body(input.run(using: &rng))
    }
}

/// `|a − b| ≤ tolerance × max(1, |a|, |b|)`.
func approximatelyEqual(_ a: Double, _ b: Double, relative tolerance: Double = 1e-12) -> Bool {
    abs(a - b) <= tolerance * max(1, abs(a), abs(b))
}
