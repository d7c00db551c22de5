/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 through libcrypto's direct interface, and HMAC-SHA256 over it
 * (see sha256.h for why). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "sha256.h"

#include <errno.h>
#include <string.h>

#include <openssl/sha.h>

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((struct sha256 *) 0)->ctx),
               "struct sha256 is too small for libcrypto's SHA256_CTX");
_Static_assert(SHA256_DIGEST_LENGTH == SHA256_LEN && SHA256_CBLOCK == SHA256_BLOCK_LEN,
               "SHA-256's digest and block sizes");

void sha256_begin(struct sha256 *h)
{
        h->ok = SHA256_Init((SHA256_CTX *) (void *) h->ctx) == 1;
}

void sha256_feed(struct sha256 *h, const void *data, size_t len)
{
        if (h->ok && len > 0 && SHA256_Update((SHA256_CTX *) (void *) h->ctx, data, len) != 1)
                h->ok = false;
}

int sha256_end(struct sha256 *h, unsigned char md[static SHA256_LEN])
{
        if (!h->ok || SHA256_Final(md, (SHA256_CTX *) (void *) h->ctx) != 1)
                return -EIO;
        return 0;
}

void sha256_to_hex(const unsigned char md[static SHA256_LEN], char hex[static SHA256_HEX_LEN + 1])
{
        static const char digits[] = "0123456789abcdef";

        for (size_t i = 0; i < SHA256_LEN; i++) {
                hex[2 * i] = digits[md[i] >> 4];
                hex[2 * i + 1] = digits[md[i] & 0xf];
        }
        hex[SHA256_HEX_LEN] = '\0';
}

int sha256_end_hex(struct sha256 *h, char hex[static SHA256_HEX_LEN + 1])
{
        unsigned char md[SHA256_LEN];

        if (sha256_end(h, md) < 0)
                return -EIO;
        sha256_to_hex(md, hex);
        return 0;
}

int sha256_hex(const void *data, size_t len, char hex[static SHA256_HEX_LEN + 1])
{
        struct sha256 h;

        sha256_begin(&h);
        sha256_feed(&h, data, len);
        return sha256_end_hex(&h, hex);
}

void hmac_sha256_begin(struct hmac_sha256 *m, const void *key, size_t key_len)
{
        unsigned char k[SHA256_BLOCK_LEN] = {0}, ikey[SHA256_BLOCK_LEN];
        bool ok = true;

        if (key_len > SHA256_BLOCK_LEN) {
                struct sha256 h;

                sha256_begin(&h);
                sha256_feed(&h, key, key_len);
                ok = sha256_end(&h, k) == 0;
        } else if (key_len > 0) {
                memcpy(k, key, key_len);
        }
        for (size_t i = 0; i < SHA256_BLOCK_LEN; i++) {
                ikey[i] = k[i] ^ 0x36;
                m->okey[i] = k[i] ^ 0x5c;
        }
        sha256_begin(&m->inner);
        sha256_feed(&m->inner, ikey, sizeof(ikey));
        m->inner.ok = m->inner.ok && ok;
        explicit_bzero(k, sizeof(k));
        explicit_bzero(ikey, sizeof(ikey));
}

void hmac_sha256_feed(struct hmac_sha256 *m, const void *data, size_t len)
{
        sha256_feed(&m->inner, data, len);
}

int hmac_sha256_end(struct hmac_sha256 *m, unsigned char tag[static SHA256_LEN])
{
        unsigned char inner[SHA256_LEN];
        struct sha256 outer;
        int r = sha256_end(&m->inner, inner);

        sha256_begin(&outer);
        sha256_feed(&outer, m->okey, sizeof(m->okey));
        sha256_feed(&outer, inner, sizeof(inner));
        if (r == 0)
                r = sha256_end(&outer, tag);
        explicit_bzero(m, sizeof(*m));
        explicit_bzero(inner, sizeof(inner));
        return r;
}

int hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                unsigned char tag[static SHA256_LEN])
{
        struct hmac_sha256 m;

        hmac_sha256_begin(&m, key, key_len);
        hmac_sha256_feed(&m, data, len);
        return hmac_sha256_end(&m, tag);
}

bool bytes_equal_ct(const void *a, const void *b, size_t n)
{
        const volatile unsigned char *x = a, *y = b;
        unsigned char d = 0;

        for (size_t i = 0; i < n; i++)
                d |= x[i] ^ y[i];
        return d == 0;
}
