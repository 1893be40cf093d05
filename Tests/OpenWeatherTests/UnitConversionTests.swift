import OpenWeather
import PropertyBased
import Testing

/// The seed every property here starts from, so each run checks the same inputs.
let openWeatherSeed: (UInt64, UInt64, UInt64, UInt64) =
    (0x6F70_656E_7765_6174, 0x6865_7200_0000_0001, 0x4B45_4C56_494E_0273, 0x4641_4852_0000_0032)

/// Checks `body` on `count` inputs drawn from `input` with a fixed Xoshiro seed (see
/// DomainTests' `seededPropertyCheck`: PropertyBased's `.fixedSeed` is for reproducing one
/// failure, not for staying on a passing test).
func seededPropertyCheck<Value>(count: Int = 500, input: Generator<Value, some Sequence>, perform body: (Value) throws -> Void) rethrows {
    var rng = Xoshiro(seed: openWeatherSeed)
    for _ in 0..<count { try body(input.run(using: &rng)) }
}

@Suite("OpenWeather units")
struct UnitConversionTests {
    /// Temperatures the air takes, °C, with OpenWeather's two decimals and without.
    let celsius = Gen.double(in: -100...70)
    let units = Gen<OpenWeatherUnits>.case

    @Test("°C → delivered → °C returns the temperature, for every unit (within the 1e-6 rounding)")
    func celsiusRoundTrip() {
        seededPropertyCheck(input: zip(celsius, units)) { c, units in
            let back = units.celsius(fromDelivered: units.delivered(fromCelsius: c))
            #expect(abs(back - c) <= 2e-6, "\(units) \(c) → \(back)")
        }
    }

    @Test("delivered → °C → delivered returns the value, for kelvin and °F")
    func deliveredRoundTrip() {
        seededPropertyCheck(input: zip(Gen.double(in: 173.15...343.15), Gen.double(in: -148...158))) { kelvin, fahrenheit in
            let k = OpenWeatherUnits.standard, f = OpenWeatherUnits.imperial
            #expect(abs(k.delivered(fromCelsius: k.celsius(fromDelivered: kelvin)) - kelvin) <= 2e-6)
            #expect(abs(f.delivered(fromCelsius: f.celsius(fromDelivered: fahrenheit)) - fahrenheit) <= 2e-6)
        }
    }

    @Test("conversion keeps order: a warmer reading is never colder in °C")
    func monotonic() {
        seededPropertyCheck(input: zip(Gen.double(in: -150...350), Gen.double(in: 0...50), units)) { a, step, units in
            #expect(units.celsius(fromDelivered: a) <= units.celsius(fromDelivered: a + step))
        }
    }

    @Test("kelvin differs from °C by 273.15 and °F steps are 5/9 of a degree")
    func offsetsAndScales() {
        seededPropertyCheck(input: zip(Gen.double(in: 180...340), Gen.double(in: -100...150))) { kelvin, fahrenheit in
            #expect(abs(OpenWeatherUnits.standard.celsius(fromDelivered: kelvin) - (kelvin - 273.15)) <= 1e-6)
            let f = OpenWeatherUnits.imperial
            #expect(abs((f.celsius(fromDelivered: fahrenheit + 9) - f.celsius(fromDelivered: fahrenheit)) - 5) <= 2e-6)
        }
    }

    @Test("fixed points: 273.15 K, 32 °F and −40 °F")
    func fixedPoints() {
        #expect(OpenWeatherUnits.standard.celsius(fromDelivered: 273.15) == 0)
        #expect(OpenWeatherUnits.standard.celsius(fromDelivered: 298.48) == 25.33)  // no floating-point tail
        #expect(OpenWeatherUnits.imperial.celsius(fromDelivered: 32) == 0)
        #expect(OpenWeatherUnits.imperial.celsius(fromDelivered: 212) == 100)
        #expect(OpenWeatherUnits.imperial.celsius(fromDelivered: -40) == -40)
        #expect(OpenWeatherUnits.metric.celsius(fromDelivered: 8.43) == 8.43)
        #expect(OpenWeatherUnits.allCases.map(\.temperatureSymbol) == ["K", "°C", "°F"])
    }

    @Test("wind: mph → m/s → mph round-trips; m/s stays as delivered")
    func windSpeed() {
        seededPropertyCheck(input: zip(Gen.double(in: 0...300), units)) { speed, units in
            let ms = units.metresPerSecond(fromDelivered: speed)
            #expect(abs(units.delivered(fromMetresPerSecond: ms) - speed) <= 1e-5)
            #expect(units == .imperial ? abs(ms - speed * 0.44704) <= 1e-6 : ms == speed)
        }
        #expect(OpenWeatherUnits.imperial.metresPerSecond(fromDelivered: 10) == 4.4704)
    }
}
