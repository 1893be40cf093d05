import CBytes

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
