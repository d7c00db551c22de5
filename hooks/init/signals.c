/* SPDX-License-Identifier: Apache-2.0 */
/* bento-init's signal sets (signals.h). */
#include "signals.h"

#include <fcntl.h>
#include <signal.h>

#include "hex.h"

init_sigset init_synchronous_signals(void)
{
        return INIT_SIGBIT(SIGSEGV) | INIT_SIGBIT(SIGBUS) | INIT_SIGBIT(SIGFPE) |
               INIT_SIGBIT(SIGILL) | INIT_SIGBIT(SIGTRAP) | INIT_SIGBIT(SIGSYS) |
               INIT_SIGBIT(SIGKILL) | INIT_SIGBIT(SIGSTOP);
}

/* Where needle starts in text, or NULL. */
static const char *find(const char *text, const char *needle)
{
        for (; *text; text++) {
                size_t i = 0;

                while (needle[i] && text[i] == needle[i])
                        i++;
                if (!needle[i])
                        return text;
        }
        return NULL;
}

bool init_status_mask(const char *text, const char *field, uint64_t *ret)
{
        const char *p = find(text, field);
        uint64_t v = 0;
        int digits = 0;

        if (!p)
                return false;
        while (*field) {
                p++;
                field++;
        }
        while (*p == ' ' || *p == '\t')
                p++;
        for (; bento_hex_digit(*p) >= 0; p++, digits++) {
                if (v >> 60)
                        return false; /* more than 64 bits */
                v = v << 4 | (uint64_t) bento_hex_digit(*p);
        }
        if (digits == 0 || *p != '\n')
                return false;
        *ret = v;
        return true;
}

init_sigset init_signals_not_default(void)
{
        /* a status file is about 1.5 KiB; one read takes it whole */
        char text[8192];
        uint64_t ign, cgt;
        long fd = sys_openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
        long n = bento_raw_failed(fd) ? -1 : sys_read((int) fd, text, sizeof(text) - 1);

        if (!bento_raw_failed(fd))
                (void) sys_close((int) fd);
        if (n <= 0)
                return ~(init_sigset) 0;
        text[n] = '\0';
        if (!init_status_mask(text, "\nSigIgn:", &ign) ||
            !init_status_mask(text, "\nSigCgt:", &cgt))
                return ~(init_sigset) 0;
        return ign | cgt;
}

void init_signals_reset(init_sigset set, init_sigset mask)
{
        static const struct init_kernel_sigaction dfl;

        set &= ~(INIT_SIGBIT(SIGKILL) | INIT_SIGBIT(SIGSTOP));
        for (int sig = 1; sig <= 64; sig++)
                if (set & INIT_SIGBIT(sig))
                        (void) sys_sigaction(sig, &dfl);
        (void) sys_sigprocmask(SIG_SETMASK, &mask, NULL);
}
