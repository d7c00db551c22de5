/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the journal key and record MACs (translate/approval/journal-key.c)
 * and the HMAC-SHA256 under them (translate/approval/sha256.c): the RFC 4231 test
 * vectors, the key's creation (modes, size, made once) and the refusals
 * of a key others could read or swap, and that a record is believed only
 * with the mac of its own fields under this host's key: a tampered field,
 * a missing mac, another key's mac or no key at all leave it unbelieved.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "approval/journal-key.h"
#include "approval/journal.h"
#include "approval/sha256.h"
#include "tap.h"

static struct bento_err err;
static char dir[] = "/tmp/bento-journal-key-XXXXXX";
static char keyhome[128], keyfile[192];

static void setup(void)
{
        static bool done;
        char state[128];

        if (done)
                return;
        done = true;
        if (!mkdtemp(dir))
                exit(1);
        snprintf(state, sizeof(state), "%s/state", dir);
        snprintf(keyhome, sizeof(keyhome), "%s/home", dir);
        snprintf(keyfile, sizeof(keyfile), "%s/.local/state/bento/journal.key", keyhome);
        setenv("XDG_STATE_HOME", state, 1);
        if (mkdir(keyhome, 0700) < 0)
                exit(1);
        journal_key_use_home(keyhome);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

__attribute__((destructor)) static void teardown(void)
{
        if (dir[strlen(dir) - 1] != 'X')
                nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int unhex(const char *hex, unsigned char *out)
{
        size_t n = strlen(hex) / 2;

        for (size_t i = 0; i < n; i++)
                if (sscanf(hex + 2 * i, "%2hhx", &out[i]) != 1)
                        return -1;
        return (int) n;
}

/* One RFC 4231 case: key and data in hex, the expected tag in hex (the
 * first 2 * cmp_len digits). */
static bool rfc4231(const char *key_hex, const char *data_hex, const char *want, size_t cmp_len)
{
        unsigned char key[256], data[256], tag[SHA256_LEN];
        char hex[SHA256_HEX_LEN + 1];
        int kn = unhex(key_hex, key), dn = unhex(data_hex, data);

        if (kn < 0 || dn < 0 || hmac_sha256(key, (size_t) kn, data, (size_t) dn, tag) < 0)
                return false;
        sha256_to_hex(tag, hex);
        return strncmp(hex, want, 2 * cmp_len) == 0;
}

#define K131                                                                                       \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"       \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"         \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"         \
        "aaaaaaaaaaaaaaaaaaaa"

TEST(hmac_rfc4231_vectors)
{
        /* Test case 1 */
        ASSERT_TRUE(rfc4231("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
                            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
                            32));
        /* Test case 2: a key shorter than the tag ("Jefe") */
        ASSERT_TRUE(rfc4231("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
                            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
                            32));
        /* Test case 3 */
        ASSERT_TRUE(rfc4231("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                            "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                            "dddddddddddddddddddddddddddddddddddd",
                            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
                            32));
        /* Test case 4 */
        ASSERT_TRUE(rfc4231("0102030405060708090a0b0c0d0e0f10111213141516171819",
                            "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
                            "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
                            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
                            32));
        /* Test case 5: a tag truncated to 128 bits */
        ASSERT_TRUE(rfc4231("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c",
                            "546573742057697468205472756e636174696f6e",
                            "a3b6167473100ee06e0c796c2955552b", 16));
        /* Test case 6: a key longer than a block is hashed first */
        ASSERT_TRUE(rfc4231(K131,
                            "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a"
                            "65204b6579202d2048617368204b6579204669727374",
                            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
                            32));
        /* Test case 7 */
        ASSERT_TRUE(rfc4231(K131,
                            "5468697320697320612074657374207573696e672061206c6172676572207468"
                            "616e20626c6f636b2d73697a65206b657920616e642061206c61726765722074"
                            "68616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565"
                            "647320746f20626520686173686564206265666f7265206265696e6720757365"
                            "642062792074686520484d414320616c676f726974686d2e",
                            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
                            32));
        /* And a wrong tag is told apart. */
        ASSERT_TRUE(!rfc4231("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657266",
                             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
                             32));
}

TEST(hmac_in_pieces_equals_one_call)
{
        static const unsigned char key[] = "key";
        unsigned char a[SHA256_LEN], b[SHA256_LEN];
        struct hmac_sha256 m;

        ASSERT_OK(hmac_sha256(key, 3, "The quick brown fox", 19, a));
        hmac_sha256_begin(&m, key, 3);
        hmac_sha256_feed(&m, "The quick", 9);
        hmac_sha256_feed(&m, "", 0);
        hmac_sha256_feed(&m, " brown fox", 10);
        ASSERT_OK(hmac_sha256_end(&m, b));
        ASSERT_TRUE(bytes_equal_ct(a, b, sizeof(a)));
        b[31] ^= 1;
        ASSERT_TRUE(!bytes_equal_ct(a, b, sizeof(a)));
}

TEST(no_key_until_ensure_makes_one_private)
{
        unsigned char k1[JOURNAL_KEY_LEN], k2[JOURNAL_KEY_LEN];
        cleanup_free char *path = NULL;
        char d[256];
        struct stat st;

        setup();
        ASSERT_OK(journal_key_path(&path, &err));
        ASSERT_STREQ(path, keyfile);
        ASSERT_EQ(journal_key_load(k1, &err), 0);
        ASSERT_OK(journal_key_ensure(k1, &err));
        ASSERT_OK(lstat(keyfile, &st));
        ASSERT_TRUE(S_ISREG(st.st_mode));
        ASSERT_EQ(st.st_mode & 07777, 0600);
        ASSERT_EQ(st.st_size, JOURNAL_KEY_LEN);
        snprintf(d, sizeof(d), "%s/.local/state/bento", keyhome);
        ASSERT_OK(stat(d, &st));
        ASSERT_EQ(st.st_mode & 07777, 0700);
        /* Made once: a second ensure and a load give the same bytes. */
        ASSERT_OK(journal_key_ensure(k2, &err));
        ASSERT_TRUE(bytes_equal_ct(k1, k2, sizeof(k1)));
        ASSERT_EQ(journal_key_load(k2, &err), 1);
        ASSERT_TRUE(bytes_equal_ct(k1, k2, sizeof(k1)));
}

TEST(a_key_others_can_read_or_swap_is_refused_and_never_replaced)
{
        unsigned char k[JOURNAL_KEY_LEN], orig[JOURNAL_KEY_LEN];
        char moved[256];

        setup();
        ASSERT_OK(journal_key_ensure(orig, &err));
        ASSERT_OK(chmod(keyfile, 0640));
        ASSERT_EQ(journal_key_load(k, &err), -EPERM);
        ASSERT_CONTAINS(err.msg, "not private");
        ASSERT_EQ(journal_key_ensure(k, &err), -EPERM);
        ASSERT_CONTAINS(err.msg, "remove it");
        ASSERT_OK(chmod(keyfile, 0600));
        /* A link in the key's place, even to a private file, is not read. */
        snprintf(moved, sizeof(moved), "%s/real.key", dir);
        ASSERT_OK(rename(keyfile, moved));
        ASSERT_OK(symlink(moved, keyfile));
        ASSERT_EQ(journal_key_load(k, &err), -EPERM);
        ASSERT_EQ(journal_key_ensure(k, &err), -EPERM);
        ASSERT_OK(unlink(keyfile));
        ASSERT_OK(rename(moved, keyfile));
        ASSERT_EQ(journal_key_load(k, &err), 1);
        ASSERT_TRUE(bytes_equal_ct(k, orig, sizeof(k)));
}

TEST(a_short_key_is_refused)
{
        unsigned char k[JOURNAL_KEY_LEN];
        int fd;

        setup();
        ASSERT_OK(journal_key_ensure(k, &err));
        ASSERT_OK(unlink(keyfile));
        fd = open(keyfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, "short", 5), 5);
        close(fd);
        ASSERT_EQ(journal_key_load(k, &err), -EINVAL);
        ASSERT_EQ(journal_key_ensure(k, &err), -EINVAL); /* never overwritten */
        ASSERT_OK(unlink(keyfile));
        ASSERT_OK(journal_key_ensure(k, &err)); /* removed: a new key is made */
}

static struct journal_entry sample(void)
{
        return (struct journal_entry){.fingerprint = "aa",
                                      .policy = "entrypoint: \"./x\"\n",
                                      .manifest_path = "/tmp/m.yaml",
                                      .stamped_at = "2026-07-14T00:00:00Z",
                                      .reviewed = true,
                                      .has_identity = true,
                                      .named_path = "/tmp/n.yaml",
                                      .named_symlink = true,
                                      .dev = 7,
                                      .ino = 42};
}

TEST(a_mac_covers_every_field)
{
        unsigned char key[JOURNAL_KEY_LEN] = {1, 2, 3}, other[JOURNAL_KEY_LEN] = {1, 2, 4};
        char mac[JOURNAL_MAC_HEX_LEN + 1];
        struct journal_entry e = sample(), t;

        ASSERT_OK(journal_mac(key, &e, mac));
        ASSERT_EQ(strlen(mac), JOURNAL_MAC_HEX_LEN);
        ASSERT_TRUE(!journal_authentic(key, &e)); /* no mac */
        e.mac = mac;
        ASSERT_TRUE(journal_authentic(key, &e));
        ASSERT_TRUE(!journal_authentic(other, &e)); /* another key */
#define TAMPERED(field, value)                                                                     \
        do {                                                                                       \
                t = e;                                                                             \
                t.field = value;                                                                   \
                ASSERT_TRUE(!journal_authentic(key, &t));                                          \
        } while (0)
        TAMPERED(fingerprint, "ab");
        TAMPERED(policy, "entrypoint: \"./y\"\n");
        TAMPERED(manifest_path, "/tmp/m2.yaml");
        TAMPERED(stamped_at, "2026-07-15T00:00:00Z");
        TAMPERED(reviewed, false);
        TAMPERED(has_identity, false);
        TAMPERED(named_path, "/tmp/o.yaml");
        TAMPERED(named_symlink, false);
        TAMPERED(dev, 8);
        TAMPERED(ino, 43);
        TAMPERED(mac, "00");
#undef TAMPERED
        /* Moving bytes between adjacent fields changes the mac too. */
        t = e;
        t.fingerprint = "aa/tmp";
        t.manifest_path = "/m.yaml";
        ASSERT_TRUE(!journal_authentic(key, &t));
        mac[0] = mac[0] == '0' ? '1' : '0';
        ASSERT_TRUE(!journal_authentic(key, &e));
}

/* Overwrite the record filed under key with json (0600). */
static int put_entry(const char *key, const char *json)
{
        cleanup_free char *path = NULL;
        int fd, r;

        if (journal_entry_path(key, &path, &err) < 0)
                return -1;
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return -1;
        r = write(fd, json, strlen(json)) == (ssize_t) strlen(json) ? 0 : -1;
        close(fd);
        return r;
}

static char *read_entry(const char *key)
{
        cleanup_free char *path = NULL;
        char *data = NULL;
        size_t len;

        if (journal_entry_path(key, &path, &err) < 0 ||
            bento_read_file(path, 1 << 20, &data, &len, &err) < 0)
                return NULL;
        return data;
}

/* Replace the first "from" in s by "to" (same length). */
static void patch(char *s, const char *from, const char *to)
{
        char *p = s ? strstr(s, from) : NULL;

        if (p)
                memcpy(p, to, strlen(to));
}

TEST(the_journal_believes_only_records_its_key_signed)
{
        struct journal_entry e = sample();
        cleanup_free char *json = NULL, *forged = NULL;
        unsigned char other[JOURNAL_KEY_LEN] = {9};
        char mac[JOURNAL_MAC_HEX_LEN + 1], *p;

        setup();
        e.reviewed = false;
        e.has_identity = false;
        ASSERT_OK(journal_record(&e, &err));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_MATCHES);
        json = read_entry("/tmp/m.yaml");
        ASSERT_CONTAINS(json, "\"mac\"");
        /* A field changed in place, the mac kept: not believed. */
        forged = strdup(json);
        patch(forged, "\"reviewed\": false", "\"reviewed\": true ");
        ASSERT_CONTAINS(forged, "\"reviewed\": true");
        ASSERT_OK(put_entry("/tmp/m.yaml", forged));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_UNAUTHENTICATED);
        /* The mac removed: not believed. */
        free(forged);
        forged = strdup(json);
        p = forged ? strstr(forged, "\"mac\"") : NULL;
        ASSERT_TRUE(p);
        memcpy(p, "\"xyz\"", 5);
        ASSERT_OK(put_entry("/tmp/m.yaml", forged));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_UNAUTHENTICATED);
        /* A mac under another key (what a sandbox could compute): not believed. */
        ASSERT_OK(journal_mac(other, &e, mac));
        free(forged);
        forged = strdup(json);
        p = forged ? strstr(forged, "\"mac\": \"") : NULL;
        ASSERT_TRUE(p);
        memcpy(p + 8, mac, JOURNAL_MAC_HEX_LEN);
        ASSERT_OK(put_entry("/tmp/m.yaml", forged));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_UNAUTHENTICATED);
        /* The genuine record back: believed; then no key on the host: not. */
        ASSERT_OK(put_entry("/tmp/m.yaml", json));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_MATCHES);
        ASSERT_OK(unlink(keyfile));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_UNAUTHENTICATED);
        /* A new key (approve made it) does not revive the old record. */
        ASSERT_OK(journal_key_ensure(other, &err));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_UNAUTHENTICATED);
        ASSERT_OK(journal_record(&e, &err));
        ASSERT_EQ(journal_lookup("/tmp/m.yaml", "aa", NULL), JOURNAL_MATCHES);
}

TAP_MAIN()
