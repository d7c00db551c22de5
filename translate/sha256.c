/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 through libcrypto's direct interface (see sha256.h for why). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "sha256.h"

#include <errno.h>

#include <openssl/sha.h>

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((struct sha256 *) 0)->ctx),
               "struct sha256 is too small for libcrypto's SHA256_CTX");

void sha256_begin(struct sha256 *h)
{
        h->ok = SHA256_Init((SHA256_CTX *) (void *) h->ctx) == 1;
}

void sha256_feed(struct sha256 *h, const void *data, size_t len)
{
        if (h->ok && len > 0 && SHA256_Update((SHA256_CTX *) (void *) h->ctx, data, len) != 1)
                h->ok = false;
}

int sha256_end_hex(struct sha256 *h, char hex[static SHA256_HEX_LEN + 1])
{
        static const char digits[] = "0123456789abcdef";
        unsigned char md[SHA256_DIGEST_LENGTH];

        if (!h->ok || SHA256_Final(md, (SHA256_CTX *) (void *) h->ctx) != 1)
                return -EIO;
        for (size_t i = 0; i < sizeof(md); i++) {
                hex[2 * i] = digits[md[i] >> 4];
                hex[2 * i + 1] = digits[md[i] & 0xf];
        }
        hex[SHA256_HEX_LEN] = '\0';
        return 0;
}

int sha256_hex(const void *data, size_t len, char hex[static SHA256_HEX_LEN + 1])
{
        struct sha256 h;

        sha256_begin(&h);
        sha256_feed(&h, data, len);
        return sha256_end_hex(&h, hex);
}
