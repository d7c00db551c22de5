/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where a bento bundle's own exec gate listens, by name inside the bundle
 * directory.  linux.seccomp.listenerPath holds the absolute path (crun
 * refuses a relative one), which names the old place once the bundle is
 * moved; this annotation lets bento-runtime find the socket in the bundle
 * wherever the bundle now is (docs/exec-gate.md, "Started by
 * bento-runtime").  Runtimes that do not know it ignore it.
 */
#ifndef BENTO_EXEC_GATE_SOCKET_H
#define BENTO_EXEC_GATE_SOCKET_H

#define BENTO_GATE_SOCKET_ANNOTATION "org.bento.exec-gate.socket"

#endif
