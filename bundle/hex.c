/* SPDX-License-Identifier: Apache-2.0 */
/* Hex encoding and strict decoding (hex.h). */
#include "hex.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *bento_hex_encode(const void *data, size_t len)
{
        static const char digits[] = "0123456789abcdef";
        const unsigned char *p = data;
        char *out = len < SIZE_MAX / 2 ? malloc(len * 2 + 1) : NULL;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len; i++) {
                out[2 * i] = digits[p[i] >> 4];
                out[2 * i + 1] = digits[p[i] & 0xf];
        }
        out[2 * len] = '\0';
        return out;
}

int bento_hex_decode(const char *hex, char **ret, size_t *ret_len)
{
        size_t n = strlen(hex);
        char *out;

        if (n % 2)
                return -EINVAL;
        out = malloc(n / 2 + 1);
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < n / 2; i++) {
                int hi = bento_hex_digit(hex[2 * i]), lo = bento_hex_digit(hex[2 * i + 1]);

                if (hi < 0 || lo < 0) {
                        free(out);
                        return -EINVAL;
                }
                out[i] = (char) (hi << 4 | lo);
        }
        out[n / 2] = '\0';
        *ret = out;
        *ret_len = n / 2;
        return 0;
}
