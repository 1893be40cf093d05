import CSHA256
import FeedCore
import Foundation
import Testing

/// The payload hash: FIPS 180-4 test vectors, and the same digest however the bytes are split.
@Suite struct ArchiveHashTests {
    @Test func knownVectors() {
        #expect(SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmjklmnklmnolmnopmnopqnopq".utf8))
                == "9ad289b5b8ca3b67b3e1238ea026560d218cac02ee49b871795a3311874d107e")  // 64 bytes, as Python hashlib gives
        #expect(SHA256.hex(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func splittingTheInputDoesNotChangeTheDigest() {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let whole = SHA256.hex(bytes)
        for _ in 0..<50 {
            var hasher = SHA256()
            var offset = 0
            while offset < bytes.count {
                let n = Int.random(in: 0...130, using: &generator)
                let end = min(offset + n, bytes.count)
                hasher.update(bytes.subdata(in: offset..<end))
                offset = end
            }
            #expect(hasher.hexDigest() == whole)
        }
    }

    /// The SHA-instruction path (when this CPU has it) and the portable C path give the same
    /// state for any run of blocks; the vectors above check whichever of them the CPU picks.
    @Test func acceleratedAndPortableCompressionAgree() {
        var generator = SystemRandomNumberGenerator()
        for blocks in [1, 2, 3, 7, 16, 65] {
            let bytes = (0..<(64 * blocks)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let start: [UInt32] = (0..<8).map { _ in UInt32.random(in: 0...UInt32.max, using: &generator) }
            var dispatched = start, portable = start
            dispatched.withUnsafeMutableBufferPointer { feedline_sha256_blocks($0.baseAddress!, bytes, blocks) }
            portable.withUnsafeMutableBufferPointer { feedline_sha256_blocks_portable($0.baseAddress!, bytes, blocks) }
            #expect(dispatched == portable, "\(blocks) blocks (accelerated: \(SHA256.isAccelerated))")
        }
    }
}
