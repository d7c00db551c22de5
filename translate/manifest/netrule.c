/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host and port patterns of network rules (docs/manifest.md, "NETWORK RULES"), the manifest
 * side.  The grammar itself is bundle/hostname.c, the same code bento-egress
 * enforces the rules with; here it is applied to manifest values, which are
 * hostile, so every pattern a message quotes goes through the screen's
 * sanitiser first.
 */
#include "netrule.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "hostname.h"
#include "screen.h"

#define SHOWN_MAX 128

static const char *shown(const char *s, char *buf, size_t size)
{
        return screen_sanitize(s, strlen(s), SHOWN_MAX, buf, size);
}

int netrule_check_host(const char *host, char *why, size_t size)
{
        char canon[BENTO_IP_CANON_MAX], b[SHOWN_MAX + 8] = "";
        enum bento_host_problem p = bento_host_pattern_check(host, canon);

        if (p == BENTO_HOST_OK)
                return 0;
        if (host)
                shown(host, b, sizeof(b));
        bento_host_problem_text(p, b, host ? strlen(host) : 0, canon, why, size);
        return -EINVAL;
}

int netrule_check_port(const char *port, char *why, size_t size)
{
        char b[SHOWN_MAX + 8] = "";
        enum bento_port_problem p = bento_port_pattern_check(port);

        if (p == BENTO_PORT_OK)
                return 0;
        if (port)
                shown(port, b, sizeof(b));
        bento_port_problem_text(p, b, why, size);
        return -EINVAL;
}

bool netrule_host_matches(const char *pattern, const char *host)
{
        cleanup_free char *p = NULL, *h = NULL;

        if (!pattern || !host)
                return false;
        p = strdup(pattern);
        h = strdup(host);
        /* out of memory matches nothing */
        if (!p || !h)
                return false;
        bento_host_normalise(p);
        bento_host_normalise(h);
        return bento_host_matches(p, h);
}
