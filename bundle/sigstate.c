/* SPDX-License-Identifier: Apache-2.0 */
/* Which signals have a disposition other than the default (sigstate.h). */
#include "sigstate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

/* The 64-bit hex mask after "\n<field>" in text, or false. */
static bool status_mask(const char *text, const char *field, uint64_t *ret)
{
        const char *p = strstr(text, field);
        char *end = NULL;

        if (!p)
                return false;
        p += strlen(field);
        while (*p == ' ' || *p == '\t')
                p++;
        errno = 0;
        *ret = strtoull(p, &end, 16);
        return errno == 0 && end != p && *end == '\n';
}

void bento_signals_not_default(sigset_t *set)
{
        cleanup_close int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        /* a status file is about 1.5 KiB; one read takes it whole */
        char text[8192];
        uint64_t ign = 0, cgt = 0;
        ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

        sigfillset(set);
        if (n <= 0)
                return;
        text[n] = '\0';
        if (!status_mask(text, "\nSigIgn:", &ign) || !status_mask(text, "\nSigCgt:", &cgt))
                return;
        sigemptyset(set);
        for (int sig = 1; sig < NSIG && sig <= 64; sig++)
                if ((ign | cgt) & ((uint64_t) 1 << (sig - 1)))
                        sigaddset(set, sig);
}

void bento_signals_reset_raw(const sigset_t *set, const sigset_t *mask)
{
        /* the kernel's struct sigaction all zero (handler, flags, restorer
         * where there is one, mask: 24 or 32 bytes): SIG_DFL, nothing else */
        static const uint64_t dfl[4];
        uint64_t bits = 0;

        for (int sig = 1; sig < NSIG && sig <= 64; sig++) {
                if (sig != SIGKILL && sig != SIGSTOP && sigismember(set, sig) == 1)
                        (void) syscall(SYS_rt_sigaction, sig, dfl, NULL, sizeof(uint64_t));
                if (sigismember(mask, sig) == 1)
                        bits |= (uint64_t) 1 << (sig - 1);
        }
        (void) syscall(SYS_rt_sigprocmask, SIG_SETMASK, &bits, NULL, sizeof(uint64_t));
}
