import PropertyBased
import Testing

/// Checks `body` on `count` inputs drawn from `input` with a fixed Xoshiro seed, so each run
/// checks the same inputs (PropertyBased's `.fixedSeed` trait runs a single input; see
/// DomainTests' PropertySupport for why).
func seededPropertyCheck<Value>(
    count: Int = 300,
    seed: (UInt64, UInt64, UInt64, UInt64),
    input: Generator<Value, some Sequence>,
    perform body: (Value) throws -> Void
) rethrows {
    var rng = Xoshiro(seed: seed)
    for _ in 0..<count {
        try body(input.run(using: &rng))
    }
}
