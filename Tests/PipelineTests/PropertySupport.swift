import PropertyBased
import Testing

/// The seed every property in this target starts from, so each run checks the same inputs.
let pipelineSeed: (UInt64, UInt64, UInt64, UInt64) =
    (0x6372_6F6E_0000_0005, 0x7363_6865_6475_6C65, 0x5345_4F55_4C00_0009, 0x4453_5400_0000_0002)

/// Checks `body` on `count` inputs drawn from `input` with a fixed Xoshiro seed (the same
/// inputs on every run; see DomainTests/PropertySupport.swift for why not `.fixedSeed`).
func seededPropertyCheck<Value>(
    count: Int = 200,
    seed: (UInt64, UInt64, UInt64, UInt64) = pipelineSeed,
    input: Generator<Value, some Sequence>,
    perform body: (Value) throws -> Void
) rethrows {
    var rng = Xoshiro(seed: seed)
    for _ in 0..<count {
        try body(input.run(using: &rng))
    }
}
