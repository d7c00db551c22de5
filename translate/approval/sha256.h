/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 from libcrypto, through its direct (non-EVP) interface.
 *
 * Why not EVP: in OpenSSL 3 the first EVP digest loads the provider
 * machinery, which costs 0.5-0.9 ms on our CI machine - more than the rest
 * of `bento run`'s own checks of a small manifest.  SHA256_Init() and
 * friends are deprecated in OpenSSL 3 but still shipped and maintained,
 * compute the same digest, and need no initialisation.
 *
 * HMAC-SHA256 (RFC 2104) is built here from the same two calls rather than
 * taken from libcrypto's HMAC(), which goes through EVP and its provider
 * start-up cost; the journal's record MACs (journal-key.h) use it.
 */
#ifndef BENTO_SHA256_H
#define BENTO_SHA256_H

#include <stdbool.h>
#include <stddef.h>

#define SHA256_HEX_LEN   64
#define SHA256_LEN       32
#define SHA256_BLOCK_LEN 64

struct sha256 {
        unsigned char ctx[128]; /* an opaque SHA256_CTX (112 bytes in OpenSSL 3) */
        bool ok;                /* false after the first libcrypto failure */
};

void sha256_begin(struct sha256 *h);
void sha256_feed(struct sha256 *h, const void *data, size_t len);
/* 0, or -EIO when libcrypto failed at any step. */
int sha256_end_hex(struct sha256 *h, char hex[static SHA256_HEX_LEN + 1]);
int sha256_hex(const void *data, size_t len, char hex[static SHA256_HEX_LEN + 1]);
/* The raw digest; 0 or -EIO as sha256_end_hex(). */
int sha256_end(struct sha256 *h, unsigned char md[static SHA256_LEN]);
/* Lower-case hex of a raw digest. */
void sha256_to_hex(const unsigned char md[static SHA256_LEN], char hex[static SHA256_HEX_LEN + 1]);

/* HMAC-SHA256, fed in pieces: begin with the key (any length; longer than
 * a block it is hashed first), feed the message, end with the tag. */
struct hmac_sha256 {
        struct sha256 inner;
        unsigned char okey[SHA256_BLOCK_LEN]; /* the key XOR opad, for the outer hash */
};

void hmac_sha256_begin(struct hmac_sha256 *m, const void *key, size_t key_len);
void hmac_sha256_feed(struct hmac_sha256 *m, const void *data, size_t len);
/* 0, or -EIO when libcrypto failed at any step.  Wipes m's key material. */
int hmac_sha256_end(struct hmac_sha256 *m, unsigned char tag[static SHA256_LEN]);
int hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                unsigned char tag[static SHA256_LEN]);

/* Whether a and b (n bytes each) are equal, in time that depends on n
 * only, so a forger learns nothing from how long a refusal took. */
bool bytes_equal_ct(const void *a, const void *b, size_t n);

#endif
