import CSHA256
import Foundation

/// SHA-256 (FIPS 180-4), incremental, for payload content hashes. Works on whole buffers: runs
/// of 64-byte blocks go straight from the caller's memory to the C compression function
/// (CSHA256), which uses the CPU's SHA instructions when it has them.
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes of an incomplete block carried to the next `update`.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    /// Feeds the bytes of a contiguous buffer (`Data`, `[UInt8]`, …).
    public mutating func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        bytes.withUnsafeBytes { raw in update(raw) }
    }

    private mutating func update(_ raw: UnsafeRawBufferPointer) {
        guard !raw.isEmpty else { return }
        length &+= UInt64(raw.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, raw.count)
            pending.append(contentsOf: raw[0..<take])
            offset = take
            guard pending.count == 64 else { return }
            let block = pending
            block.withUnsafeBytes { compress($0.baseAddress!, count: 1) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (raw.count - offset) / 64
        if whole > 0 {
            compress(raw.baseAddress! + offset, count: whole)
            offset += whole * 64
        }
        if offset < raw.count { pending.append(contentsOf: raw[offset...]) }
    }

    /// The digest as lowercase hex.
    public func hexDigest() -> String {
        var copy = self
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        while (copy.pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let savedLength = copy.length
        copy.update(tail)
        copy.length = savedLength
        let words = [copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4, copy.state.5, copy.state.6, copy.state.7]
        let hex: [Character] = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(64)
        for word in words {
            for shift in stride(from: 28, through: 0, by: -4) { out.append(hex[Int((word >> UInt32(shift)) & 0xf)]) }
        }
        return out
    }

    /// One-shot digest of `bytes`.
    public static func hex<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        var h = SHA256()
        h.update(bytes)
        return h.hexDigest()
    }

    /// Compresses whole 64-byte blocks (C: SHA instructions when the CPU has them).
    private mutating func compress(_ blocks: UnsafeRawPointer, count: Int) {
        withUnsafeMutableBytes(of: &state) { words in
            feedline_sha256_blocks(words.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                   blocks.assumingMemoryBound(to: UInt8.self), count)
        }
    }

    /// Whether hashing uses the CPU's SHA instructions.
    public static var isAccelerated: Bool { feedline_sha256_accelerated() != 0 }
}
