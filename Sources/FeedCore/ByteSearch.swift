import CBytes
#if canImport(Glibc)
import Glibc
#endif

/// Where a run of bytes first occurs in another: glibc's `memmem` (two-way search with vector
/// instructions), for the field-name searches decoders run over a page's head.
public enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `haystack`, or nil when there is none
    /// (an empty needle is found at 0).
    public static func firstOffset(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !needle.isEmpty else { return 0 }
        guard let hay = haystack.baseAddress, let key = needle.baseAddress, needle.count <= haystack.count else { return nil }
        let offset = feedline_find_bytes(hay, haystack.count, key, needle.count)
        return offset < 0 ? nil : offset
    }
}

extension ByteSearch {
    /// Whether `needle` occurs in `haystack`, found by `memchr` for the needle's byte at `pivot`
    /// and a comparison of the rest at each hit. For a needle whose pivot byte is rare in the
    /// haystack (`&`, `%`, `\` or the `!` of `<!--` in a page of data) this is many times faster
    /// than `memmem`, whose short-needle search goes byte by byte.
    public static func contains(_ needle: [UInt8], pivot: Int, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard pivot >= 0, pivot < needle.count else { return needle.isEmpty }
        guard let base = haystack.baseAddress, needle.count <= haystack.count else { return false }
        let key = needle[pivot]
        var from = pivot
        let last = haystack.count - (needle.count - pivot)  // the last place the pivot byte can stand
        while from <= last {
            guard let found = memchr(base + from, Int32(key), last - from + 1) else { return false }
            let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let start = at - pivot
            if needle.indices.allSatisfy({ haystack[start + $0] == needle[$0] }) { return true }
            from = at + 1
        }
        return false
    }
}
