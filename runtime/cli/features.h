/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What this build of bento-runtime implements, in one place, said two ways:
 * the `features` document (runtime-spec features.md) and the feature line
 * of `--version` ("+SYSTEMD +CAP +SECCOMP ..."), which tools and test
 * suites grep to decide what to try.  Both come from the same switches
 * below, so they cannot disagree; a feature is switched on here in the
 * commit that makes it work, never before.
 */
#ifndef RT_FEATURES_H
#define RT_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

/* linux.selinux / +SELINUX: process.selinuxLabel and linux.mountLabel are
 * applied where SELinux is enabled, ignored with a warning elsewhere
 * (runtime-spec: "enabled" means built in, not active on this host). */
#define RT_HAVE_SELINUX true
/* linux.apparmor / +APPARMOR: process.apparmorProfile is applied where
 * AppArmor is enabled, ignored with a warning elsewhere. */
#define RT_HAVE_APPARMOR true
/* linux.mountExtensions.idmap: uidMappings/gidMappings on a mount. */
#define RT_HAVE_IDMAP_MOUNTS true

/* The feature line (no trailing newline). */
void rt_features_print_tags(FILE *out);

/* The features document on stdout. */
void rt_features_print(void);

#endif
