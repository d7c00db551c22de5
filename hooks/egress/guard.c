/* SPDX-License-Identifier: Apache-2.0 */
/* Address classification for the upstream guard (see guard.h). */
#include "guard.h"

#include <netinet/in.h>
#include <string.h>

static const int rfc6052_lengths[] = {96, 64, 56, 48, 40, 32};

const char *egress_class_name(enum egress_class c)
{
        switch (c) {
        case EGRESS_PUBLIC:
                return "public";
        case EGRESS_PRIVATE:
                return "private";
        case EGRESS_RESERVED:
                break;
        }
        return "reserved";
}

static enum egress_class strictest(enum egress_class a, enum egress_class b)
{
        return a > b ? a : b;
}

enum egress_class egress_classify_v4(const uint8_t a[4])
{
        if (a[0] == 0 || a[0] == 127 || a[0] >= 224) /* 0/8, loopback, multicast, 240/4 */
                return EGRESS_RESERVED;
        if (a[0] == 169 && a[1] == 254) /* link-local, cloud metadata */
                return EGRESS_RESERVED;
        if (a[0] == 198 && (a[1] & 0xfe) == 18) /* benchmarking 198.18/15 */
                return EGRESS_RESERVED;
        if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168))
                return EGRESS_PRIVATE;
        if (a[0] == 100 && (a[1] & 0xc0) == 64) /* CGNAT 100.64/10 */
                return EGRESS_PRIVATE;
        return EGRESS_PUBLIC;
}

/* Byte positions of the embedded IPv4 per RFC 6052 prefix length. */
static const uint8_t *positions(int len)
{
        static const uint8_t p32[] = {4, 5, 6, 7}, p40[] = {5, 6, 7, 9}, p48[] = {6, 7, 9, 10},
                             p56[] = {7, 9, 10, 11}, p64[] = {9, 10, 11, 12},
                             p96[] = {12, 13, 14, 15};

        switch (len) {
        case 32:
                return p32;
        case 40:
                return p40;
        case 48:
                return p48;
        case 56:
                return p56;
        case 64:
                return p64;
        case 96:
                return p96;
        default:
                return NULL;
        }
}

bool egress_rfc6052_decode(const uint8_t a[16], int len, bool zero_suffix, uint8_t out[4])
{
        const uint8_t *pos = positions(len);

        if (!pos)
                return false;
        if (len < 96 && a[8] != 0)
                return false;
        if (zero_suffix)
                for (int i = pos[3] + 1; i < 16; i++)
                        if (a[i] != 0)
                                return false;
        for (int i = 0; i < 4; i++)
                out[i] = a[pos[i]];
        return true;
}

static bool has_prefix(const uint8_t a[16], const uint8_t *prefix, size_t n)
{
        return memcmp(a, prefix, n) == 0;
}

/* RFC 8215 local-use 64:ff9b:1::/48: private at least, reserved when some
 * RFC 6052 decoding yields a reserved IPv4. */
static enum egress_class local_use_nat64(const uint8_t a[16])
{
        static const int lens[] = {48, 56, 64, 96};
        uint8_t v4[4];

        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
                if (!egress_rfc6052_decode(a, lens[i], true, v4))
                        continue;
                if (memcmp(v4, "\0\0\0\0", 4) == 0)
                        continue;
                if (egress_classify_v4(v4) == EGRESS_RESERVED)
                        return EGRESS_RESERVED;
        }
        return EGRESS_PRIVATE;
}

/* Fixed-prefix embeddings of an IPv4.  Returns true and the embedded
 * address's class when one applies. */
static bool fixed_embedding(const uint8_t a[16], enum egress_class *ret)
{
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        static const uint8_t translated[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
        static const uint8_t nat64_wkp[12] = {0, 0x64, 0xff, 0x9b};
        static const uint8_t zero[12] = {0};

        if (has_prefix(a, mapped, 12) || has_prefix(a, translated, 12) ||
            has_prefix(a, nat64_wkp, 12) || has_prefix(a, zero, 12)) {
                *ret = egress_classify_v4(a + 12);
                return true;
        }
        if (a[0] == 0x20 && a[1] == 0x02) { /* 6to4 2002:AABB:CCDD::/48 */
                *ret = egress_classify_v4(a + 2);
                return true;
        }
        return false;
}

/* Verdict for an otherwise-public address under discovered DNS64 prefixes. */
static enum egress_class under_nat64(const uint8_t a[16], const struct egress_nat64 *n64)
{
        enum egress_class c = EGRESS_PUBLIC;
        bool under = false;
        uint8_t v4[4];

        for (size_t i = 0; i < n64->n; i++) {
                const struct egress_pref64 *p = &n64->prefixes[i];

                if (!has_prefix(a, p->bytes, (size_t) p->len / 8))
                        continue;
                under = true;
                /* an address under the prefix that does not decode is judged
                 * as the worst it could be */
                if (!egress_rfc6052_decode(a, p->len, false, v4))
                        c = strictest(c, EGRESS_PRIVATE);
                else
                        c = strictest(c, egress_classify_v4(v4));
        }
        if (under)
                return c;
        if (n64->n > 0)
                for (size_t i = 0; i < sizeof(rfc6052_lengths) / sizeof(rfc6052_lengths[0]); i++)
                        if (egress_rfc6052_decode(a, rfc6052_lengths[i], false, v4) &&
                            egress_classify_v4(v4) != EGRESS_PUBLIC)
                                return EGRESS_PRIVATE;
        if (n64->inconclusive)
                return EGRESS_PRIVATE; /* a NAT64 blackout: could lead anywhere */
        return EGRESS_PUBLIC;
}

enum egress_class egress_classify_v6(const uint8_t a[16], const struct egress_nat64 *nat64)
{
        static const uint8_t local_use[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
        enum egress_class c;

        if (a[0] == 0xff) /* multicast */
                return EGRESS_RESERVED;
        if (a[0] == 0xfe && ((a[1] & 0xc0) == 0x80 || (a[1] & 0xc0) == 0xc0))
                return EGRESS_RESERVED; /* link-local fe80::/10, site-local fec0::/10 */
        if ((a[0] & 0xfe) == 0xfc)
                return EGRESS_PRIVATE; /* unique local fc00::/7 */
        /* ::, ::1 and IPv4-compatible addresses land here, as 0.0.0.0/8 */
        if (fixed_embedding(a, &c))
                return c;
        if (has_prefix(a, local_use, sizeof(local_use)))
                return local_use_nat64(a);
        /* ISATAP interface id, consulted only for an otherwise-public address */
        if ((a[8] == 0 || a[8] == 2) && a[9] == 0 && a[10] == 0x5e && a[11] == 0xfe) {
                c = egress_classify_v4(a + 12);
                if (c != EGRESS_PUBLIC)
                        return c;
        }
        return nat64 ? under_nat64(a, nat64) : EGRESS_PUBLIC;
}

enum egress_class egress_classify(const struct sockaddr *sa, const struct egress_nat64 *nat64)
{
        if (sa->sa_family == AF_INET) {
                const struct sockaddr_in *in = (const struct sockaddr_in *) sa;

                return egress_classify_v4((const uint8_t *) &in->sin_addr);
        }
        if (sa->sa_family == AF_INET6) {
                const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;

                return egress_classify_v6(in6->sin6_addr.s6_addr, nat64);
        }
        return EGRESS_RESERVED;
}

bool egress_nat64_add_answer(struct egress_nat64 *nat64, const uint8_t a[16])
{
        uint8_t v4[4];

        for (size_t i = 0; i < sizeof(rfc6052_lengths) / sizeof(rfc6052_lengths[0]); i++) {
                int len = rfc6052_lengths[i];
                struct egress_pref64 p = {.len = len};

                if (!egress_rfc6052_decode(a, len, false, v4))
                        continue;
                if (memcmp(v4, "\xc0\x00\x00\xaa", 4) != 0 &&
                    memcmp(v4, "\xc0\x00\x00\xab", 4) != 0)
                        continue;
                memcpy(p.bytes, a, (size_t) len / 8);
                for (size_t j = 0; j < nat64->n; j++)
                        if (nat64->prefixes[j].len == len &&
                            memcmp(nat64->prefixes[j].bytes, p.bytes, 16) == 0)
                                return true;
                if (nat64->n < EGRESS_NAT64_MAX)
                        nat64->prefixes[nat64->n++] = p;
                return true;
        }
        return false;
}
