/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 from libcrypto, through its direct (non-EVP) interface.
 *
 * Why not EVP: in OpenSSL 3 the first EVP digest loads the provider
 * machinery, which costs 0.5-0.9 ms on our CI machine - more than the rest
 * of `bento run`'s own checks of a small manifest.  SHA256_Init() and
 * friends are deprecated in OpenSSL 3 but still shipped and maintained,
 * compute the same digest, and need no initialisation.
 */
#ifndef BENTO_SHA256_H
#define BENTO_SHA256_H

#include <stdbool.h>
#include <stddef.h>

#define SHA256_HEX_LEN 64

struct sha256 {
        unsigned char ctx[128]; /* an opaque SHA256_CTX (112 bytes in OpenSSL 3) */
        bool ok;                /* false after the first libcrypto failure */
};

void sha256_begin(struct sha256 *h);
void sha256_feed(struct sha256 *h, const void *data, size_t len);
/* 0, or -EIO when libcrypto failed at any step. */
int sha256_end_hex(struct sha256 *h, char hex[static SHA256_HEX_LEN + 1]);
int sha256_hex(const void *data, size_t len, char hex[static SHA256_HEX_LEN + 1]);

#endif
