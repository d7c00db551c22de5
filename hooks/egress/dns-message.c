/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DNS messages (RFC 1035, section 4): one query out, one answer read back.  The
 * answer comes from the network and is read as hostile: every offset is
 * checked against its length, compression pointers are followed at most
 * 64 times, and a label holding a dot or a NUL byte makes the answer
 * malformed (it could otherwise pass for two labels in a comparison).
 */
#include "dns.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#define HEADER_LEN   12
#define FLAG_QR      0x80 /* byte 2 */
#define FLAG_OPCODE  0x78 /* byte 2 */
#define FLAG_TC      0x02 /* byte 2 */
#define FLAG_RD      0x01 /* byte 2 */
#define RCODE_MASK   0x0f /* byte 3 */
#define RCODE_NXNAME 3
#define CLASS_IN     1
#define JUMPS_MAX    64
#define CNAME_HOPS   16

static uint16_t get16(const uint8_t *p)
{
        return (uint16_t) ((p[0] << 8) | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
        p[0] = (uint8_t) (v >> 8);
        p[1] = (uint8_t) (v & 0xff);
}

size_t dns_query_build(uint8_t *buf, size_t size, uint16_t id, const char *name, uint16_t type)
{
        size_t len = strlen(name), pos = HEADER_LEN;

        if (len == 0 || len > DNS_NAME_MAX || size < HEADER_LEN + len + 2 + 4)
                return 0;
        memset(buf, 0, HEADER_LEN);
        put16(buf, id);
        buf[2] = FLAG_RD;
        put16(buf + 4, 1); /* one question */
        for (const char *p = name; *p;) {
                size_t label = strcspn(p, ".");

                if (label == 0 || label > 63)
                        return 0;
                buf[pos++] = (uint8_t) label;
                memcpy(buf + pos, p, label);
                pos += label;
                p += label;
                if (*p == '.' && *++p == '\0')
                        return 0; /* names come without the trailing dot */
        }
        buf[pos++] = 0;
        put16(buf + pos, type);
        put16(buf + pos + 2, CLASS_IN);
        return pos + 4;
}

static char lower(uint8_t c)
{
        return (char) (c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

/* The name at *off into out (lower case, dotted, "" for the root);
 * *off moves past the name where it stands. */
static int read_name(const uint8_t *msg, size_t len, size_t *off, char out[DNS_NAME_MAX + 1])
{
        size_t pos = *off, n = 0;
        bool jumped = false;
        int jumps = 0;

        for (;;) {
                uint8_t label;

                if (pos >= len)
                        return -EBADMSG;
                label = msg[pos];
                if ((label & 0xc0) == 0xc0) {
                        if (pos + 1 >= len || ++jumps > JUMPS_MAX)
                                return -EBADMSG;
                        if (!jumped)
                                *off = pos + 2;
                        jumped = true;
                        pos = ((size_t) (label & 0x3f) << 8) | msg[pos + 1];
                        continue;
                }
                if (label & 0xc0)
                        return -EBADMSG; /* the obsolete extended label types */
                if (label == 0) {
                        if (!jumped)
                                *off = pos + 1;
                        out[n] = '\0';
                        return 0;
                }
                if (pos + 1 + label > len || n + (n ? 1 : 0) + label > DNS_NAME_MAX)
                        return -EBADMSG;
                if (n)
                        out[n++] = '.';
                for (size_t i = 0; i < label; i++) {
                        uint8_t c = msg[pos + 1 + i];

                        if (c == '.' || c == '\0')
                                return -EBADMSG;
                        out[n++] = lower(c);
                }
                pos += 1 + (size_t) label;
        }
}

struct record {
        char owner[DNS_NAME_MAX + 1];
        uint16_t type, class_;
        size_t data, data_len; /* offset and length of its data in the message */
};

/* The resource record at *off; *off moves past it. */
static int read_record(const uint8_t *msg, size_t len, size_t *off, struct record *rr)
{
        if (read_name(msg, len, off, rr->owner) < 0 || *off + 10 > len)
                return -EBADMSG;
        rr->type = get16(msg + *off);
        rr->class_ = get16(msg + *off + 2);
        rr->data_len = get16(msg + *off + 8);
        rr->data = *off + 10;
        if (rr->data + rr->data_len > len)
                return -EBADMSG;
        *off = rr->data + rr->data_len;
        return 0;
}

static void add_address(const uint8_t *data, uint16_t type, unsigned short port,
                        struct egress_addrs *out)
{
        struct sockaddr_storage *ss;

        if (out->n == EGRESS_ADDRS_MAX)
                return;
        ss = &out->a[out->n];
        memset(ss, 0, sizeof(*ss));
        if (type == DNS_TYPE_A) {
                struct sockaddr_in *in = (struct sockaddr_in *) ss;

                in->sin_family = AF_INET;
                in->sin_port = htons(port);
                memcpy(&in->sin_addr, data, 4);
                out->len[out->n++] = sizeof(*in);
        } else {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ss;

                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(port);
                memcpy(&in6->sin6_addr, data, 16);
                out->len[out->n++] = sizeof(*in6);
        }
}

/* The header and the question: is this the answer to our query? */
static int check_question(const uint8_t *msg, size_t len, uint16_t id, const char *name,
                          uint16_t type, size_t *off)
{
        char qname[DNS_NAME_MAX + 1];

        if (len < HEADER_LEN || get16(msg) != id || !(msg[2] & FLAG_QR) || (msg[2] & FLAG_OPCODE) ||
            get16(msg + 4) != 1)
                return -EBADMSG;
        *off = HEADER_LEN;
        if (read_name(msg, len, off, qname) < 0 || *off + 4 > len || strcmp(qname, name) != 0 ||
            get16(msg + *off) != type || get16(msg + *off + 2) != CLASS_IN)
                return -EBADMSG;
        *off += 4;
        return 0;
}

/* Where the CNAME chain from name ends, among the answer records. */
static int follow_cnames(const uint8_t *msg, size_t len, size_t answers, unsigned count,
                         const char *name, char end[DNS_NAME_MAX + 1])
{
        memcpy(end, name, strlen(name) + 1);
        for (int hop = 0; hop <= CNAME_HOPS; hop++) {
                size_t off = answers;
                bool moved = false;

                for (unsigned i = 0; i < count && !moved; i++) {
                        struct record rr;
                        size_t data;

                        if (read_record(msg, len, &off, &rr) < 0)
                                return -EBADMSG;
                        if (rr.type != DNS_TYPE_CNAME || rr.class_ != CLASS_IN ||
                            strcmp(rr.owner, end) != 0)
                                continue;
                        data = rr.data;
                        if (read_name(msg, rr.data + rr.data_len, &data, end) < 0)
                                return -EBADMSG;
                        moved = true;
                }
                if (!moved)
                        return 0;
        }
        return -EBADMSG; /* a chain longer than any server sends, or a loop */
}

int dns_answer_parse(const uint8_t *msg, size_t len, uint16_t id, const char *name, uint16_t type,
                     unsigned short port, struct egress_addrs *out)
{
        char end[DNS_NAME_MAX + 1];
        struct egress_addrs got;
        size_t off, want = type == DNS_TYPE_A ? 4 : 16;
        unsigned count;
        bool found = false;
        int r = check_question(msg, len, id, name, type, &off);

        if (r < 0)
                return r;
        if (msg[2] & FLAG_TC)
                return -EMSGSIZE;
        if ((msg[3] & RCODE_MASK) == RCODE_NXNAME)
                return -ENOENT;
        if ((msg[3] & RCODE_MASK) != 0)
                return -EAGAIN;
        count = get16(msg + 6);
        r = follow_cnames(msg, len, off, count, name, end);
        /* into a copy: a malformed answer adds nothing */
        got = *out;
        for (unsigned i = 0; r == 0 && i < count; i++) {
                struct record rr;

                r = read_record(msg, len, &off, &rr);
                if (r == 0 && rr.type == type && rr.class_ == CLASS_IN && rr.data_len == want &&
                    strcmp(rr.owner, end) == 0) {
                        add_address(msg + rr.data, type, port, &got);
                        found = true;
                }
        }
        if (r < 0)
                return r;
        if (!found)
                return -ENOENT;
        *out = got;
        return 0;
}
