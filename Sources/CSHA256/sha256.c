// SHA-256 block compression (FIPS 180-4) for payload content hashes.
//
// Two implementations of the same function: the x86 SHA extensions (SHA-NI: about 1.5 GB/s on
// one core) and portable C. The choice is made once, from CPUID. Padding, hex and incremental
// buffering stay in Swift (FeedCore/SHA256.swift); this file only turns blocks into state.
#include "csha256.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

void feedline_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    uint32_t w[64];
    while (blocks--) {
        for (int i = 0; i < 16; i++) {
            const uint8_t *p = data + 4 * i;
            w[i] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
        }
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
        data += 64;
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

// The SHA extensions keep the state as two vectors, ABEF and CDGH, and run two rounds per
// sha256rnds2; sha256msg1/msg2 extend the message schedule four words at a time.
__attribute__((target("sha,sse4.1,ssse3")))
static void sha256_blocks_ni(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i state1 = _mm_loadu_si128((const __m128i *)&state[4]);
    tmp = _mm_shuffle_epi32(tmp, 0xB1);                /* CDAB */
    state1 = _mm_shuffle_epi32(state1, 0x1B);          /* EFGH */
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  /* ABEF */
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);       /* CDGH */

    while (blocks--) {
        const __m128i abef = state0, cdgh = state1;
        __m128i m[4];
        /* Fully unrolled, so m[] lives in registers rather than memory. */
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {          /* rounds 4g … 4g+3 */
            if (g < 4) m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byteswap);
            __m128i msg = _mm_add_epi32(m[g & 3], _mm_loadu_si128((const __m128i *)&K[4 * g]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
            if (g >= 3 && g <= 14) {            /* words of the next group */
                __m128i carry = _mm_alignr_epi8(m[g & 3], m[(g + 3) & 3], 4);
                m[(g + 1) & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(m[(g + 1) & 3], carry), m[g & 3]);
            }
            msg = _mm_shuffle_epi32(msg, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, msg);
            if (g >= 1 && g <= 12) m[(g + 3) & 3] = _mm_sha256msg1_epu32(m[(g + 3) & 3], m[g & 3]);
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
        data += 64;
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B);             /* FEBA */
    state1 = _mm_shuffle_epi32(state1, 0xB1);          /* DCHG */
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);       /* DCBA */
    state1 = _mm_alignr_epi8(state1, tmp, 8);          /* HGFE */
    _mm_storeu_si128((__m128i *)&state[0], state0);
    _mm_storeu_si128((__m128i *)&state[4], state1);
}

static int detect_sha_ni(void) {
    unsigned int eax, ebx, ecx, edx;
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0), "c"(0));
    if (eax < 7) return 0;
    // CPUID leaf 7, sub-leaf 0: EBX bit 29 is SHA. Leaf 1: ECX bit 9 SSSE3, bit 19 SSE4.1.
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(7), "c"(0));
    int sha = (ebx >> 29) & 1;
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(1), "c"(0));
    return sha && ((ecx >> 9) & 1) && ((ecx >> 19) & 1);
}

// CPUID is slow under virtualisation, so it runs once; -1 means not asked yet. Threads that race
// on the first call all store the same answer.
static int sha_ni = -1;

static int has_sha_ni(void) {
    int known = __atomic_load_n(&sha_ni, __ATOMIC_RELAXED);
    if (known < 0) {
        known = detect_sha_ni();
        __atomic_store_n(&sha_ni, known, __ATOMIC_RELAXED);
    }
    return known;
}

void feedline_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    if (has_sha_ni()) sha256_blocks_ni(state, data, blocks);
    else feedline_sha256_blocks_portable(state, data, blocks);
}

int feedline_sha256_accelerated(void) { return has_sha_ni(); }

#else

void feedline_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    feedline_sha256_blocks_portable(state, data, blocks);
}

int feedline_sha256_accelerated(void) { return 0; }

#endif
