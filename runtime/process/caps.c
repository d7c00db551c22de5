/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Capability names and the five capability sets of the container process
 * (see caps.h).  Sets are handled as 64-bit masks: the kernel ABI (two 32-bit
 * words per set) cannot express more, and a mask needs no allocation in the
 * container init.  The application order follows the kernel's rules: the
 * bounding set can only shrink while CAP_SETPCAP is effective, the
 * inheritable set can only gain what is permitted or bounded, and an ambient
 * capability can only be raised once it is both permitted and inheritable.
 */
#include "caps.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cleanup.h"

_Static_assert(RT_CAP_LAST == 40, "the name table below stops at CAP_CHECKPOINT_RESTORE");

/* Masks hold capabilities 0..63; the kernel's capset ABI has no room for
 * more, so a higher number could never be granted anyway. */
#define MASK_BITS 64
#define BIT(c)    (UINT64_C(1) << (c))

/* Keyed by the kernel's own constants so a number can never drift from its
 * name; #c spells the macro name, not its value. */
#define CAP_NAME(c) [c] = #c
static const char *const cap_names[RT_CAP_LAST + 1] = {
    CAP_NAME(CAP_CHOWN),
    CAP_NAME(CAP_DAC_OVERRIDE),
    CAP_NAME(CAP_DAC_READ_SEARCH),
    CAP_NAME(CAP_FOWNER),
    CAP_NAME(CAP_FSETID),
    CAP_NAME(CAP_KILL),
    CAP_NAME(CAP_SETGID),
    CAP_NAME(CAP_SETUID),
    CAP_NAME(CAP_SETPCAP),
    CAP_NAME(CAP_LINUX_IMMUTABLE),
    CAP_NAME(CAP_NET_BIND_SERVICE),
    CAP_NAME(CAP_NET_BROADCAST),
    CAP_NAME(CAP_NET_ADMIN),
    CAP_NAME(CAP_NET_RAW),
    CAP_NAME(CAP_IPC_LOCK),
    CAP_NAME(CAP_IPC_OWNER),
    CAP_NAME(CAP_SYS_MODULE),
    CAP_NAME(CAP_SYS_RAWIO),
    CAP_NAME(CAP_SYS_CHROOT),
    CAP_NAME(CAP_SYS_PTRACE),
    CAP_NAME(CAP_SYS_PACCT),
    CAP_NAME(CAP_SYS_ADMIN),
    CAP_NAME(CAP_SYS_BOOT),
    CAP_NAME(CAP_SYS_NICE),
    CAP_NAME(CAP_SYS_RESOURCE),
    CAP_NAME(CAP_SYS_TIME),
    CAP_NAME(CAP_SYS_TTY_CONFIG),
    CAP_NAME(CAP_MKNOD),
    CAP_NAME(CAP_LEASE),
    CAP_NAME(CAP_AUDIT_WRITE),
    CAP_NAME(CAP_AUDIT_CONTROL),
    CAP_NAME(CAP_SETFCAP),
    CAP_NAME(CAP_MAC_OVERRIDE),
    CAP_NAME(CAP_MAC_ADMIN),
    CAP_NAME(CAP_SYSLOG),
    CAP_NAME(CAP_WAKE_ALARM),
    CAP_NAME(CAP_BLOCK_SUSPEND),
    CAP_NAME(CAP_AUDIT_READ),
    CAP_NAME(CAP_PERFMON),
    CAP_NAME(CAP_BPF),
    CAP_NAME(CAP_CHECKPOINT_RESTORE),
};

static const char *const set_names[_OCI_CAP_SET_MAX] = {
    [OCI_CAP_BOUNDING] = "bounding",       [OCI_CAP_EFFECTIVE] = "effective",
    [OCI_CAP_INHERITABLE] = "inheritable", [OCI_CAP_PERMITTED] = "permitted",
    [OCI_CAP_AMBIENT] = "ambient",
};

/* A name libcap might know beyond our table must still look like one:
 * cap_from_name() also takes bare numbers and other spellings that a config
 * file has no business using. */
static bool looks_like_cap_name(const char *name)
{
        if (strncasecmp(name, "CAP_", 4) != 0 || name[4] == '\0')
                return false;
        for (const char *p = name + 4; *p; p++)
                if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                      (*p >= '0' && *p <= '9')))
                        return false;
        return true;
}

int rt_cap_from_name(const char *name)
{
        cap_value_t v;

        if (!name || !looks_like_cap_name(name))
                return -1;
        for (int c = 0; c <= RT_CAP_LAST; c++)
                if (strcasecmp(name, cap_names[c]) == 0)
                        return c;
        /* Only a capability newer than this table is taken from libcap. */
        if (cap_from_name(name, &v) == 0 && v > RT_CAP_LAST && v < MASK_BITS)
                return v;
        return -1;
}

const char *rt_cap_to_name(int cap)
{
        if (cap < 0 || cap > RT_CAP_LAST)
                return NULL;
        return cap_names[cap];
}

const char *rt_cap_set_name(enum oci_cap_set set)
{
        if ((int) set < 0 || set >= _OCI_CAP_SET_MAX)
                return NULL;
        return set_names[set];
}

/* The kernel's last capability cannot change while we run: found once (by
 * the probe, or from /proc in kernel_last_cap) and inherited by the init. */
static int known_last_cap = -1;

int rt_cap_last_supported(void)
{
        int c;

        if (known_last_cap >= 0)
                return known_last_cap;
        /* PR_CAPBSET_READ fails with EINVAL exactly above the kernel's last
         * capability; the bound only guards against a kernel bug. */
        for (c = 0; c < 1024; c++)
                if (prctl(PR_CAPBSET_READ, (unsigned long) c, 0, 0, 0) < 0 && errno == EINVAL)
                        break;
        known_last_cap = c - 1;
        return known_last_cap;
}

/* The runtime runs in the host's /proc, so here the documented file is
 * trusted; the probe is the fallback when /proc is not mounted. */
static int kernel_last_cap(void)
{
        cleanup_close int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
        char buf[16];
        ssize_t n;
        char *end;
        long v;

        if (fd < 0)
                return rt_cap_last_supported();
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return rt_cap_last_supported();
        buf[n] = '\0';
        errno = 0;
        v = strtol(buf, &end, 10);
        if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') || v < 0 || v > 1023)
                return rt_cap_last_supported();
        known_last_cap = (int) v;
        return known_last_cap;
}

/* Append "line\n" to buf.  The line quotes config text, so control
 * characters are replaced before it can reach a terminal or a log. */
static void __attribute__((format(printf, 3, 4)))
warn_append(char *buf, size_t size, const char *fmt, ...)
{
        char line[BENTO_ERR_MSG_MAX];
        size_t used;
        va_list ap;

        if (!buf || size == 0)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        for (char *p = line; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        *p = '?';
        used = strnlen(buf, size);
        if (used + 1 >= size)
                return;
        (void) snprintf(buf + used, size - used, "%s\n", line);
}

/* The known, kernel-supported capabilities of one set as a mask. */
static uint64_t set_mask(const struct oci_capabilities *caps, enum oci_cap_set s, int last)
{
        uint64_t m = 0;

        if (!caps || !caps->present[s])
                return 0;
        for (size_t i = 0; i < caps->n[s]; i++) {
                int c = rt_cap_from_name(caps->set[s][i]);

                if (c >= 0 && c <= last && c < MASK_BITS)
                        m |= BIT(c);
        }
        return m;
}

/* Warnings about the names themselves: unknown, too new, or not held. */
static void validate_names(const struct oci_capabilities *caps, enum oci_cap_set s, int last,
                           bool own_bounding, char *buf, size_t size)
{
        const char *set = set_names[s];

        for (size_t i = 0; i < caps->n[s]; i++) {
                const char *name = caps->set[s][i];
                int c = rt_cap_from_name(name);

                if (c < 0)
                        warn_append(buf, size,
                                    "process.capabilities.%s: unknown capability \"%s\" ignored",
                                    set, name);
                else if (c > last)
                        warn_append(buf, size,
                                    "process.capabilities.%s: \"%s\" is not supported by this "
                                    "kernel (last capability %d), ignored",
                                    set, name, last);
                else if (own_bounding && cap_get_bound(c) != 1)
                        warn_append(buf, size,
                                    "process.capabilities.%s: \"%s\" is not in the runtime's "
                                    "bounding set, ignored",
                                    set, name);
        }
}

/* Warn about every capability of set s missing from `allowed`: the kernel
 * would refuse it there, so rt_caps_apply() leaves it out. */
static void validate_subset(const struct oci_capabilities *caps, enum oci_cap_set s,
                            uint64_t allowed, int last, const char *why, char *buf, size_t size)
{
        for (size_t i = 0; i < caps->n[s]; i++) {
                int c = rt_cap_from_name(caps->set[s][i]);

                if (c < 0 || c > last || c >= MASK_BITS || (allowed & BIT(c)))
                        continue;
                warn_append(buf, size, "process.capabilities.%s: \"%s\" is not in %s, ignored",
                            set_names[s], caps->set[s][i], why);
        }
}

void rt_caps_validate(const struct oci_capabilities *caps, bool own_bounding, char *buf,
                      size_t size)
{
        uint64_t want[_OCI_CAP_SET_MAX];
        int last;

        if (!caps)
                return;
        last = kernel_last_cap();
        for (int s = 0; s < _OCI_CAP_SET_MAX; s++) {
                want[s] = set_mask(caps, s, last);
                if (caps->present[s])
                        validate_names(caps, s, last, own_bounding, buf, size);
        }
        validate_subset(caps, OCI_CAP_EFFECTIVE, want[OCI_CAP_PERMITTED], last, "the permitted set",
                        buf, size);
        validate_subset(caps, OCI_CAP_INHERITABLE, want[OCI_CAP_BOUNDING], last, "the bounding set",
                        buf, size);
        validate_subset(caps, OCI_CAP_AMBIENT, want[OCI_CAP_PERMITTED] & want[OCI_CAP_INHERITABLE],
                        last, "both the permitted and the inheritable set", buf, size);
}

static uint64_t flag_mask(cap_t c, cap_flag_t flag, int last)
{
        cap_flag_value_t v;
        uint64_t m = 0;

        for (int i = 0; i <= last && i < MASK_BITS; i++)
                if (cap_get_flag(c, i, flag, &v) == 0 && v == CAP_SET)
                        m |= BIT(i);
        return m;
}

/* What the process holds when the capability steps begin. */
struct held {
        uint64_t prm;
        uint64_t inh;
};

/* Make the effective set equal the permitted one.  After setresuid() to a
 * non-zero uid under PR_SET_KEEPCAPS the kernel has emptied the effective
 * set, and without CAP_SETPCAP effective the bounding set cannot shrink. */
static int raise_effective(int last, struct held *ret, struct bento_err *err)
{
        cleanup_cap cap_t cur = cap_get_proc();

        if (!cur)
                return bento_err_set(err, errno, "process.capabilities: cap_get_proc");
        ret->prm = flag_mask(cur, CAP_PERMITTED, last);
        ret->inh = flag_mask(cur, CAP_INHERITABLE, last);
        if (cap_fill(cur, CAP_EFFECTIVE, CAP_PERMITTED) < 0)
                return bento_err_set(err, errno, "process.capabilities: cap_fill");
        if (cap_set_proc(cur) < 0)
                return bento_err_set(err, errno, "process.capabilities: raising effective set");
        return 0;
}

/* Drop c from the bounding set.  With CAP_SETPCAP the kernel takes a drop
 * of a capability the set lacks already as a no-op, so the set is not read
 * first; without it every drop is refused (EPERM), and from then on only
 * the capabilities still in the set are dropped, so that the error names one
 * that really cannot go. */
static int drop_one(int c, bool *read_first)
{
        if (*read_first && cap_get_bound(c) != 1)
                return 0;
        if (cap_drop_bound(c) == 0)
                return 0;
        if (errno != EPERM || *read_first)
                return -errno;
        *read_first = true;
        return drop_one(c, read_first);
}

/* Drop every capability but keep from the bounding set, and return in
 * ret_bound what is left of it: one prctl per capability, a drop or, for
 * one kept, a read. */
static int drop_bounding(uint64_t keep, int last, uint64_t *ret_bound, struct bento_err *err)
{
        bool read_first = false;

        *ret_bound = 0;
        for (int c = 0; c <= last; c++) {
                const char *name;
                int r;

                if (c < MASK_BITS && (keep & BIT(c))) {
                        if (cap_get_bound(c) == 1)
                                *ret_bound |= BIT(c);
                        continue;
                }
                r = drop_one(c, &read_first);
                if (r == 0)
                        continue;
                name = rt_cap_to_name(c);
                if (name)
                        return bento_err_set(err, -r, "process.capabilities.bounding: dropping %s",
                                             name);
                return bento_err_set(err, -r, "process.capabilities.bounding: dropping cap %d", c);
        }
        return 0;
}

static int set_flags(cap_t c, cap_flag_t flag, uint64_t mask, struct bento_err *err)
{
        for (int i = 0; i < MASK_BITS; i++) {
                cap_value_t v = i;

                if (!(mask & BIT(i)))
                        continue;
                if (cap_set_flag(c, flag, 1, &v, CAP_SET) < 0)
                        return bento_err_set(err, errno, "process.capabilities: cap_set_flag(%d)",
                                             i);
        }
        return 0;
}

/* One capset() for permitted, effective and inheritable, trimmed to what the
 * kernel allows: permitted can only shrink, effective must stay within
 * permitted, inheritable may only gain capabilities that are bounded and,
 * without CAP_SETPCAP, permitted.  Returns the granted sets in ret_prm and
 * ret_inh for the ambient step. */
static int set_main_sets(const uint64_t *want, const struct held *h, uint64_t bound,
                         uint64_t until_exec, uint64_t *ret_prm, uint64_t *ret_inh,
                         struct bento_err *err)
{
        cleanup_cap cap_t c = cap_init();
        uint64_t prm, eff, inh, inh_ok;
        int r;

        if (!c)
                return bento_err_set(err, errno, "process.capabilities: cap_init");
        prm = want[OCI_CAP_PERMITTED] & h->prm;
        eff = want[OCI_CAP_EFFECTIVE] & prm;
        *ret_prm = prm;
        /* held on top until execve, which drops them (see caps.h) */
        prm |= until_exec & h->prm;
        eff |= until_exec & h->prm;
        inh_ok = h->inh | bound;
        if (!(h->prm & BIT(CAP_SETPCAP)))
                inh_ok &= h->prm | h->inh;
        inh = want[OCI_CAP_INHERITABLE] & inh_ok;
        r = set_flags(c, CAP_PERMITTED, prm, err);
        if (r >= 0)
                r = set_flags(c, CAP_EFFECTIVE, eff, err);
        if (r >= 0)
                r = set_flags(c, CAP_INHERITABLE, inh, err);
        if (r < 0)
                return r;
        if (cap_set_proc(c) < 0)
                return bento_err_set(err, errno, "process.capabilities: capset");
        *ret_inh = inh;
        return 0;
}

static int set_ambient(uint64_t mask, struct bento_err *err)
{
        /* Start from nothing: the runtime's caller may have handed down
         * ambient capabilities of its own. */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) {
                /* EINVAL: a kernel without ambient capabilities (< 4.3). */
                if (errno == EINVAL && mask == 0)
                        return 0;
                return bento_err_set(err, errno, "process.capabilities.ambient: clearing");
        }
        for (int c = 0; c < MASK_BITS; c++) {
                if (!(mask & BIT(c)))
                        continue;
                if (cap_set_ambient(c, CAP_SET) < 0) {
                        const char *name = rt_cap_to_name(c);

                        return bento_err_set(err, errno, "process.capabilities.ambient: raising %s",
                                             name ? name : "a capability");
                }
        }
        return 0;
}

int rt_caps_apply(const struct oci_capabilities *caps, uint64_t until_exec, struct bento_err *err)
{
        uint64_t want[_OCI_CAP_SET_MAX];
        uint64_t prm = 0, inh = 0, bound;
        struct held held = {0};
        int last = rt_cap_last_supported();
        int r;

        for (int s = 0; s < _OCI_CAP_SET_MAX; s++)
                want[s] = set_mask(caps, s, last);
        r = raise_effective(last, &held, err);
        if (r < 0)
                return r;
        r = drop_bounding(want[OCI_CAP_BOUNDING], last, &bound, err);
        if (r < 0)
                return r;
        r = set_main_sets(want, &held, bound, until_exec, &prm, &inh, err);
        if (r < 0)
                return r;
        return set_ambient(want[OCI_CAP_AMBIENT] & prm & inh, err);
}
