# SPDX-License-Identifier: Apache-2.0
"""Checks that need a host of the kind most users run -- systemd as PID 1,
pure cgroup v2, AppArmor -- which the CI machine is not.  They run inside
the Debian 12 guest that `make check-vm` boots (contrib/vm/), where
contrib/vm/guest-checks.sh sets BENTO_VM_GUEST=1.  Elsewhere they are not
collected at all: they would only fail there for want of such a host, and
the guest tier fails loudly when it cannot run them."""

import os

collect_ignore_glob = [] if os.environ.get("BENTO_VM_GUEST") == "1" else ["test_*.py"]
